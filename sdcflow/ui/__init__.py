"""The workbench in the browser: the recipe is the truth, and every action edits it."""
