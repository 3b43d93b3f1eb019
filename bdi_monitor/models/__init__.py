"""Case studies: the seed's beer robot (:mod:`.beer`) and its grid generalization (:mod:`.grid`)."""
