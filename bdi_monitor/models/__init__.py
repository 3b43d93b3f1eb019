"""Case studies: the seed's beer robot (:mod:`.beer`) and its grid generalization (:mod:`.grid`:
layout in :mod:`.grid_layout`, symbolic rules in :mod:`.grid_rules`); model references such as
``grid:n=512,worlds=8`` (:mod:`.reference`)."""
