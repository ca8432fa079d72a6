"""The browser workbench (``sdcflow ui``): a local web front end that edits the recipe.

The recipe is the truth: every action in the browser edits the YAML recipe (in its text,
keeping the user's comments, order and formatting), the user sees the diff, and a run from
the browser is ``sdcflow run`` on the saved recipe.

- :mod:`.server`: the application (:func:`.server.app.create_app`), who may talk to it
  (:mod:`.server.security`), the project folder it never leaves, the open recipe and
  ``sdcflow ui`` itself (:func:`.server.serve.serve`);
- :mod:`.editing`: the recipe edited in its text, and the forms made from each plugin's
  parameter schema;
- :mod:`.running`: what runs on behalf of a page (``sdcflow run`` as a subprocess, previews,
  variants, table steps, background jobs);
- :mod:`.content`: what a page shows, computed without web code (the variables, the risks,
  a table's rules, hierarchy builders, pictures);
- :mod:`.pages`: one module per screen (routes), with :mod:`templates` and ``static``.
"""
