"""The specialised search for 0/1 columns: MurTree's search, compiled (``solve``)."""
