"""What the pages show, computed without web code: the variables table, the risks of
the original data, a table's rules, hierarchy builders and the report's pictures."""
