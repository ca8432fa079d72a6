"""The browser workbench (``sdcflow ui``): a local web front end that edits the recipe.

The recipe is the truth: every action in the browser edits the YAML recipe (a round trip
that keeps the user's comments, order and formatting), the user sees the diff, and a run
from the browser is ``sdcflow run`` on the saved recipe. :func:`sdcflow.ui.app.create_app`
builds the application, :func:`sdcflow.ui.serve.serve` serves it on 127.0.0.1 behind a
one-time access token."""
