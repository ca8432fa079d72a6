"""Graph kernels: undirected simple graphs given as edge lists of node indices
``0..n-1`` (two integer arrays ``u``, ``v``), for the protection of graph data."""
