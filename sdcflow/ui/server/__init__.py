"""The workbench server: the Starlette application, its access control, the project
folder, the open recipe and the ``sdcflow ui`` command's serving."""
