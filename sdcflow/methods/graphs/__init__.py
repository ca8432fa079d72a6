"""Methods on graph data: the records are the edges of an undirected simple graph (see
:mod:`sdcflow.data.edge_list`)."""
