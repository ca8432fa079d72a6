"""What runs on behalf of a page: ``sdcflow run`` as a subprocess, previews of a step,
the variants of a grid, the table steps, and computations in the background."""
