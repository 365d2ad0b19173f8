"""Decision-tree model families: minimum pure trees (``mpdt``) and most accurate bounded-depth trees
(``dtmax``)."""
