"""Platform profiles: where the Crazyflie and the PiHawk really differ.

- **Pose feed.** The Crazyflie flies on its onboard estimator (Lighthouse / flow deck, 100 Hz);
  the PiHawk (ArduPilot on a Raspberry Pi) gets its pose from the motion-capture system over
  Wi-Fi (OptiTrack relayed at about 50 Hz), which is where the paper's pose-tracking dropouts
  came from. Both profiles run a pose-staleness watchdog; the limit follows the feed rate and
  the airframe (the heavier PiHawk tolerates a little longer on stale pose).
- **Timeouts.** ArduPilot arming runs pre-arm checks (seconds); takeoff and landing are slower on
  the larger airframe; the PiHawk's Wi-Fi link makes uploads slower.
- **Dynamics.** RotorPy parameters ``crazyflie`` (30 g) and ``hummingbird`` (500 g, the closest
  bundled airframe to a PiHawk-class quadrotor); cruise speed and gate tolerance.

The values are deliberate, documented choices (no flight logs of either platform are public);
a mission file may override any field.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from bdi_supervisor.errors import InputError


@dataclass(frozen=True)
class PlatformProfile:
    name: str
    pose_source: str  # "onboard" | "mocap"
    pose_rate_hz: float
    staleness_limit_s: float  # watchdog: pose older than this aborts the running segment
    cruise_speed: float  # m/s along a segment
    takeoff_height: float
    takeoff_duration: float
    land_duration: float
    arm_time_s: float  # time the arm/disarm call takes (pre-arm checks)
    upload_time_s: float
    plan_time_s: float
    gate_tolerance: float  # closest approach to the gate centre counted as "through the gate"
    rotorpy_params: str  # "crazyflie" | "hummingbird"
    radius: float  # m: the airframe's radius (props included) for collision checks
    #: drift acceleration (m/s²) of the kinematic model while flying on stale pose
    blind_drift: float = 2.0
    #: deviation (m) from the path at which the kinematic model crashes
    crash_deviation: float = 0.35
    #: per-capability deadline slack (s) added to the expected duration
    timeout_slack_s: float = 3.0
    extra: dict = field(default_factory=dict)


CRAZYFLIE = PlatformProfile(
    name="crazyflie",
    pose_source="onboard",
    pose_rate_hz=100.0,
    staleness_limit_s=0.2,
    cruise_speed=1.0,
    takeoff_height=1.0,
    takeoff_duration=2.5,
    land_duration=3.0,
    arm_time_s=0.2,
    upload_time_s=0.3,
    plan_time_s=0.2,
    gate_tolerance=0.35,
    rotorpy_params="crazyflie",
    radius=0.06,
)

PIHAWK = PlatformProfile(
    name="pihawk",
    pose_source="mocap",
    pose_rate_hz=50.0,
    staleness_limit_s=0.3,
    cruise_speed=0.8,
    takeoff_height=1.0,
    takeoff_duration=4.0,
    land_duration=4.0,
    arm_time_s=3.0,
    upload_time_s=1.0,
    plan_time_s=0.2,
    gate_tolerance=0.35,
    rotorpy_params="hummingbird",
    radius=0.2,
    blind_drift=1.5,
    timeout_slack_s=5.0,
)

PROFILES: dict[str, PlatformProfile] = {p.name: p for p in (CRAZYFLIE, PIHAWK)}


def profile(name: str, overrides: dict | None = None, source: str | None = None,
            key: str = "platform") -> PlatformProfile:
    """The named profile with ``overrides`` applied; unknown names or fields are input errors."""
    if name not in PROFILES:
        raise InputError("unknown quadcopter platform", file=source, key=key, found=repr(name),
                         expected=" or ".join(sorted(PROFILES)))
    base = PROFILES[name]
    if not overrides:
        return base
    known = {f.name: f for f in fields(PlatformProfile)}
    changes = {}
    for field_name, value in overrides.items():
        if field_name not in known or field_name == "name":
            raise InputError("unknown platform field", file=source, key=f"{key}.{field_name}",
                             found=repr(field_name),
                             expected=", ".join(sorted(set(known) - {"name"})))
        current = getattr(base, field_name)
        if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not type(current):
            raise InputError("wrong type for platform field", file=source,
                             key=f"{key}.{field_name}", found=repr(value),
                             expected=type(current).__name__)
        changes[field_name] = value
    if "pose_source" in changes and changes["pose_source"] not in ("onboard", "mocap"):
        raise InputError("unknown pose source", file=source, key=f"{key}.pose_source",
                         found=repr(changes["pose_source"]), expected="onboard or mocap")
    return replace(base, **changes)
