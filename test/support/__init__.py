"""What the tests share: path constants (:mod:`.paths`), the independent oracles the stages are
checked against (explicit-state synthesis, well-separation, CTL-BDI and realization checkers),
generators of random inputs, the shipped missions' supervisors built once per process, and the
command-line, ROS and reference-input helpers. Test modules import them as ``support.<name>``;
nothing here is a test."""
