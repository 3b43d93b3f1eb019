"""Spec generation against the reference pipeline's own formulas, rule by rule, on catalogs with
failure outcomes (Two-Rivers: a parameterized ``move`` whose failure must be followed by
``log_failed``; logistics P0: ten failure-capable capabilities, memory and an enumerated ``item``).

Where the fixtures come from
    ``test/data/reference_formulas/<catalog>_<encoding>.yaml`` hold formulas written by the
    reference pipeline's spec processes (CNURobotics/flexbe_synthesis at the commit named in
    ``shared/reference/NOTICE.md``): capability → transition system → request → System-Goal
    (``slugs_adversarial_liveness``) or Fair-Outcome (``slugs_fair_outcome_liveness``) liveness →
    optionally pending (``slugs_pending_specification``) → for the enumerated encoding
    ``slugs_activation_specification_parsed``. They ran on the catalog and mission copies in
    ``catalogs/`` and ``missions/`` beside the fixtures (frozen, so that a change of a shipped
    catalog does not invalidate them), given to the reference as its ``system_capabilities``
    dictionary: each capability's FlexBE outcomes with their normalized outcome, its transition
    relation, pre- and postconditions, the request's SM outcomes, memory and variable mappings.
    The reference rejects a postcondition with more than one variable, so the relational Two-Rivers
    postconditions of ``move`` were given to it as ``@`` setters of the variables they change (its
    frame rules then match ours). Each output formula was sorted into the rule of ours that it
    states (by its section, the block it is in and its place in it); only formula strings are
    kept.

Layout of a fixture
    ``formulas`` has blocks ``common`` (every configuration), ``system-goal``, ``fair-outcome``,
    ``pending`` and ``fair-outcome+pending``; a configuration is ``common`` + its liveness block
    (+ ``pending`` + the combined block, with pending), a later block replacing a rule of an
    earlier one and adding declarations. Within a block: ``declarations`` (the reference's
    ``[INPUT]``/``[OUTPUT]`` lines) and, per section, rule name → formulas.

Regenerating
    Run those reference processes in a scratch environment (they need pydantic and PyYAML; the ROS
    request message can be a plain object with its fields) on the ``system_capabilities``
    dictionary built from the frozen catalog and mission, for each encoding and each of S, SP, F,
    FP; sort the formulas of the structuredslugs output into rules as above and factor the four
    configurations into the blocks.

What is checked
    Per section and rule, the conjunction of the reference's formulas is equivalent (BDDs over both
    encodings' variables, within the integer ranges) to the conjunction of our clauses with that
    origin rule; liveness clauses are matched one by one. The declared variables are the same.
    The deliberate differences of docs/differences.md that these catalogs show are listed in
    :data:`DIFFERENCES`; each must be seen wherever it applies, and nothing else may differ.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml
from support.paths import DATA

from bdi_supervisor.mission import load_mission
from bdi_supervisor.spec.formula import Formula, conj
from bdi_supervisor.spec.gr1 import GR1Spec
from bdi_supervisor.spec.structuredslugs import format_formula, parse_declaration, parse_formula
from bdi_supervisor.specgen.generate import generate_spec
from bdi_supervisor.synthesis.symbolic import SymbolicGame, build_game

FIXTURES = DATA / "reference_formulas"
CATALOGS = ("two_rivers", "logistics_p0")
ENCODINGS = ("one-hot", "enumerated")
CONFIGURATIONS = {"S": ("system-goal", False), "SP": ("system-goal", True),
                  "F": ("fair-outcome", False), "FP": ("fair-outcome", True)}
LIVENESS = ("env_liveness", "sys_liveness")
ANY = "*"

#: (catalog, encoding, section, rule) → why ours differs from the reference there
#: (docs/differences.md)
DIFFERENCES = {
    (ANY, "enumerated", "sys_safety", "one-activation"):
        "enumerated encoding keeps SM outcomes exclusive with activations "
        "(capability' = 0 <-> finished'; the reference: capability' != 0)",
    (ANY, "enumerated", "env_safety", "no-outcome-unless-active"):
        "enumerated encoding: no outcome in the start-up slot (the reference leaves outcomes "
        "unconstrained while capability = 0)",
    ("two_rivers", ANY, "sys_safety", "goal-success"):
        "the reference negates only the first conjunct of a composite goal "
        "('!wolf = 1 & goat = 1 & ...'); ours negates the goal",
    ("two_rivers", ANY, "env_safety", "postcondition"):
        "composite and relational conditions are accepted (the reference rejects them; it was "
        "given @ setters, which write no postcondition formula)",
}


def difference(catalog: str, encoding: str, section: str, rule: str) -> str | None:
    for (c, e, s, r), reason in DIFFERENCES.items():
        if c in (ANY, catalog) and e in (ANY, encoding) and (s, r) == (section, rule):
            return reason
    return None


def reference_rules(catalog: str, encoding: str, liveness: str,
                    pending: bool) -> dict[tuple[str, str], list[str]]:
    """(section, rule) → the reference's formulas for one configuration (declarations under
    ``("declarations", "inputs" | "outputs")``)."""
    doc = yaml.safe_load((FIXTURES / f"{catalog}_{encoding}.yaml").read_text(encoding="utf-8"))
    assert (doc["catalog"], doc["encoding"]) == (catalog, encoding)
    blocks = ["common", liveness] + (["pending", f"{liveness}+pending"] if pending else [])
    rules: dict[tuple[str, str], list[str]] = {}
    for block in blocks:
        for section, items in (doc["formulas"].get(block) or {}).items():
            for rule, formulas in items.items():
                key = (section, rule)
                rules[key] = rules.get(key,
                                       []) + formulas if section == "declarations" else formulas
    return rules


def our_rules(spec: GR1Spec) -> dict[tuple[str, str], list[Formula]]:
    """(section, rule) → our formulas (mission constraints under rule ``mission``)."""
    rules: dict[tuple[str, str], list[Formula]] = {}
    for section in ("env_init", "sys_init", "env_safety", "sys_safety", *LIVENESS):
        for clause in spec.section(section):
            rule = "mission" if clause.origin.source == "mission" else clause.origin.rule
            rules.setdefault((section, rule), []).append(clause.formula)
    return rules


def our_spec(catalog: str, encoding: str, liveness: str, pending: bool) -> GR1Spec:
    mission = load_mission(FIXTURES / "missions" / f"{catalog}.yaml")
    return generate_spec(mission, encoding=encoding, liveness=liveness, pending=pending)


def arena(spec: GR1Spec, declarations: list[tuple[str, str]]) -> tuple[SymbolicGame, object]:
    """A BDD manager over our variables and the reference's, and the range limits of all of them
    in the current and the next state."""
    variables = {v.name: v for v in spec.variables}
    for owner, text in declarations:
        theirs = parse_declaration(text, owner)
        ours = variables.setdefault(theirs.name, theirs)
        assert (ours.owner, ours.kind, ours.low, ours.high) == (theirs.owner, theirs.kind,
                                                                theirs.low, theirs.high), text
    game = build_game(GR1Spec(variables=[replace(v, comment="") for v in variables.values()]),
                      reordering=False)
    domain = game.true
    for var in game.variables:
        domain &= game.limit(var) & game.limit(var, True)
    return game, domain


def equivalent(game: SymbolicGame, domain, left: list[Formula], right: list[Formula]) -> bool:
    return (game.encode(conj(left)) & domain) == (game.encode(conj(right)) & domain)


def same_clauses(game: SymbolicGame, domain, left: list[Formula], right: list[Formula]) -> bool:
    """Liveness: each clause of ``left`` is equivalent to its own clause of ``right``."""
    rest = [game.encode(f) & domain for f in right]
    for formula in left:
        bdd = game.encode(formula) & domain
        if bdd not in rest:
            return False
        rest.remove(bdd)
    return not rest


CASES = [pytest.param(c, e, k, id=f"{c}-{e}-{k}") for c in CATALOGS for e in ENCODINGS
         for k in CONFIGURATIONS]


def required_rules(encoding: str, liveness: str, pending: bool) -> set[tuple[str, str]]:
    """Rules every configuration must compare (so that a fixture cannot silently lose one)."""
    rules = {("env_safety", "exactly-one-outcome"), ("env_safety", "at-most-one-outcome"),
             ("sys_safety", "transition-relation"), ("sys_safety", "precondition"),
             ("sys_safety", "goal-required"), ("sys_init", "initial-activation")}
    rules |= {("sys_liveness", "system-goal")} if liveness == "system-goal" else \
        {("env_liveness", "fair-outcome"), ("sys_liveness", "sm-outcome-reached")}
    if encoding == "one-hot":
        rules |= {("sys_safety", "one-activation"), ("env_safety", "no-outcome-unless-active")}
    if pending:
        rules |= {("sys_init", "pending-initial")} | {("sys_safety", f"pending-{r}")
                                                      for r in ("set", "failure", "clear", "keep")}
    return rules


def show(formulas: list[Formula]) -> str:
    return "; ".join(format_formula(f) for f in formulas) or "(none)"


@pytest.mark.parametrize("catalog, encoding, configuration", CASES)
def test_each_rule_states_what_the_reference_states(catalog, encoding, configuration):
    liveness, pending = CONFIGURATIONS[configuration]
    theirs = reference_rules(catalog, encoding, liveness, pending)
    spec = our_spec(catalog, encoding, liveness, pending)
    ours = our_rules(spec)
    declared = [("env", t) for t in theirs.pop(("declarations", "inputs"), [])]
    declared += [("sys", t) for t in theirs.pop(("declarations", "outputs"), [])]
    declared_names = sorted(parse_declaration(t, o).name for o, t in declared)
    assert declared_names == sorted(v.name for v in spec.variables)
    game, domain = arena(spec, declared)
    agree, differ = set(), {}
    for key in sorted(set(theirs) | set(ours)):
        section, rule = key
        mine = ours.get(key, [])
        reference = [parse_formula(t) for t in theirs.get(key, [])]
        check = same_clauses if section in LIVENESS else equivalent
        if check(game, domain, reference, mine):
            agree.add(key)
        else:
            differ[key] = f"{section}/{rule}: reference {show(reference)} | ours {show(mine)}"
    unexplained = [text for key, text in differ.items() if not difference(catalog, encoding, *key)]
    assert not unexplained, ("rules that state something else than the reference's:\n"
                             + "\n".join(unexplained))
    listed = {(s, r) for c, e, s, r in DIFFERENCES if c in (ANY, catalog) and e in (ANY, encoding)}
    unseen = sorted(listed - set(differ))
    assert listed == set(differ), f"listed as deliberate differences but not seen: {unseen}"
    assert required_rules(encoding, liveness, pending) <= agree
