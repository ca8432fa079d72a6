"""The recipe edited in its own text (comments and formatting kept), and the forms a
step's parameters are entered in, made from its plugin's parameter schema."""
