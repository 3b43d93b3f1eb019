"""A Crazyflie at the other end of cflib's link layer, for the Crazyflie backend's tests.

cflib finds a link driver for a URI among ``cflib.crtp.CLASSES``; :func:`install` adds
:class:`EmulatedLink` (URIs ``emulated://<name>``) there, in the test process only. Everything
above the link is cflib's own (``Crazyflie``, ``SyncCrazyflie``, the log, parameter and memory
subsystems, the supervisor and the high-level commander, packing every command), so the backend
is exercised against cflib's real API without a radio. :class:`EmulatedCrazyflie` answers the
CRTP protocol as far as a connection and a flight need it (protocol version 12, the log TOC with
the telemetry variables, an empty parameter TOC, one trajectory memory, log blocks streamed at
their period, the supervisor's arm / emergency stop, the high-level commander's take-off, land,
go-to, stop, define and start trajectory) and flies the commanded motions in real time: a
trajectory flies the Poly4D pieces written to its memory.
"""

from __future__ import annotations

import queue
import struct
import threading
import time
from dataclasses import dataclass, field

from cflib.crtp import CLASSES
from cflib.crtp.crtpdriver import CRTPDriver
from cflib.crtp.crtpstack import CRTPPacket, CRTPPort
from cflib.crtp.exceptions import WrongUriType

from bdi_supervisor.domains.quadcopter import trajectory as T

SCHEME = "emulated://"
PROTOCOL = 12
#: the log TOC: (group, name), all floats (type 0x07)
LOG_TOC = (("stateEstimate", "x"), ("stateEstimate", "y"), ("stateEstimate", "z"),
           ("pm", "vbat"))
TRAJECTORY_MEMORY = 0x12
PIECE_BYTES = 132  # Poly4D: 4 x 8 floats and the duration
EMULATORS: dict[str, EmulatedCrazyflie] = {}


@dataclass
class Motion:
    """A commanded motion: from ``start`` over ``duration`` s to ``end``, or along ``pieces``."""

    start: tuple
    end: tuple
    duration: float
    began: float
    pieces: list | None = None
    timescale: float = 1.0

    def at(self, now: float) -> tuple:
        t = max(0.0, now - self.began)
        if self.pieces:
            return T.position(self.pieces, t / self.timescale)
        f = 1.0 if self.duration <= 0 else min(t / self.duration, 1.0)
        return tuple(a + f * (b - a) for a, b in zip(self.start, self.end))


@dataclass
class EmulatedCrazyflie:
    """One Crazyflie's state and what it was sent."""

    name: str = "cf"
    position: tuple = (0.0, 0.0, 0.0)
    vbat: float = 4.0
    streaming: bool = True  # False: the log blocks go quiet (a telemetry loss)
    drift: tuple = (0.0, 0.0, 0.0)  # added to the position (the drone blown off its path)
    armed: bool = False
    stopped: bool = False  # the motors were stopped by an emergency stop
    memory: bytearray = field(default_factory=lambda: bytearray(4096))
    trajectories: dict = field(default_factory=dict)  # id -> (offset, pieces)
    commands: list = field(default_factory=list)  # (name, values) of every command received
    connections: int = 0
    motion: Motion | None = None

    def now(self) -> float:
        return time.monotonic()

    def where(self) -> tuple:
        p = self.motion.at(self.now()) if self.motion else self.position
        return tuple(a + b for a, b in zip(p, self.drift))

    def _move(self, end: tuple, duration: float, pieces=None, timescale: float = 1.0) -> None:
        start = self.motion.at(self.now()) if self.motion else self.position
        self.position = start
        self.motion = Motion(start, end, duration, self.now(), pieces, timescale)

    def pieces_at(self, offset: int, count: int) -> list[T.Piece]:
        out = []
        for index in range(count):
            values = struct.unpack_from("<33f", self.memory, offset + index * PIECE_BYTES)
            out.append(T.Piece(values[32], values[0:8], values[8:16], values[16:24],
                               values[24:32]))
        return out

    # -- the high-level commander (port 8) ---------------------------------------------------
    def high_level(self, data: bytes) -> None:
        command = data[0]
        here = self.where()
        if command in (7, 8):  # TAKEOFF_2, LAND_2
            _, _, height, _, _, duration = struct.unpack("<BBff?f", data)
            self.commands.append(("takeoff" if command == 7 else "land", (height, duration)))
            self._move((here[0], here[1], height), duration)
        elif command == 12:  # GO_TO_2
            _, _, relative, _, x, y, z, _, duration = struct.unpack("<BBBBfffff", data)
            self.commands.append(("go_to", (x, y, z, duration, relative)))
            self._move((x, y, z), duration)
        elif command == 3:  # STOP: motors off
            self.commands.append(("stop", ()))
            self.position, self.motion = (here[0], here[1], 0.0), None
        elif command == 6:  # DEFINE_TRAJECTORY
            _, ident, _, kind, offset, count = struct.unpack("<BBBBIB", data)
            self.commands.append(("define_trajectory", (ident, kind, offset, count)))
            self.trajectories[ident] = (offset, self.pieces_at(offset, count))
        elif command == 13:  # START_TRAJECTORY_2
            _, _, relative, _, reverse, ident, scale = struct.unpack("<BBBBBBf", data)
            self.commands.append(("start_trajectory", (ident, scale, relative, reverse)))
            pieces = self.trajectories[ident][1]
            self._move(T.position(pieces, T.duration(pieces)), T.duration(pieces) * scale,
                       pieces, scale)
        else:
            self.commands.append((f"hl_{command}", tuple(data)))

    def supervisor(self, channel: int, data: bytes) -> bytes | None:
        if channel == 1 and data[0] == 1:  # CMD_ARM_SYSTEM
            self.armed = bool(data[1])
            self.commands.append(("arm", (self.armed,)))
            return bytes((0x81, 1, int(self.armed)))
        if channel == 1 and data[0] == 3:  # CMD_EMERGENCY_STOP
            self.commands.append(("emergency_stop", ()))
            here = self.where()
            self.position, self.motion = (here[0], here[1], 0.0), None
            self.armed, self.stopped = False, True
            return None
        if channel == 0 and data[0] == 0x0C:  # CMD_GET_STATE_BITFIELD
            bits = (1 << 0) | (int(self.armed) << 1) | (int(self.where()[2] > 0.05) << 4)
            return bytes((0x8C,)) + struct.pack("<H", bits)
        return None


class EmulatedLink(CRTPDriver):
    """cflib's link driver interface, answered by an :class:`EmulatedCrazyflie`."""

    def __init__(self) -> None:
        super().__init__()
        self.needs_resending = False
        self.cf: EmulatedCrazyflie | None = None
        self._in: queue.Queue = queue.Queue()
        self._blocks: dict[int, tuple] = {}  # id -> (variables, period s)
        self._closed = threading.Event()

    def connect(self, uri, radio_link_statistics_callback, link_error_callback):
        if not uri.startswith(SCHEME):
            raise WrongUriType("not an emulated Crazyflie")
        self.cf = EMULATORS.get(uri[len(SCHEME):])
        if self.cf is None:
            raise ConnectionError(f"no Crazyflie answers at {uri}")
        self.cf.connections += 1
        threading.Thread(target=self._stream, daemon=True).start()

    def get_name(self):
        return "emulated"

    def scan_interface(self, address=None):
        return [[SCHEME + name, ""] for name in EMULATORS]

    def receive_packet(self, wait=0):
        try:
            return self._in.get(timeout=None if wait < 0 else wait) if wait else \
                self._in.get_nowait()
        except queue.Empty:
            return None

    def close(self):
        self._closed.set()

    def _reply(self, port: int, channel: int, data: bytes) -> None:
        packet = CRTPPacket()
        packet.set_header(port, channel)
        packet.data = data
        self._in.put(packet)

    def send_packet(self, pk):
        port, channel, data = pk.port, pk.channel, bytes(pk.data)
        if port == CRTPPort.LINKCTRL and channel == 1:
            self._reply(port, channel, b"Bitcraze Crazyflie")
        elif port == CRTPPort.PLATFORM and channel == 1 and data[:1] == b"\x00":
            self._reply(port, channel, bytes((0, PROTOCOL)))
        elif port in (CRTPPort.LOGGING, CRTPPort.PARAM) and channel == 0:
            self._toc(port, data)
        elif port == CRTPPort.LOGGING and channel == 1:
            self._log_settings(data)
        elif port == CRTPPort.MEM:
            self._memory(channel, data)
        elif port == CRTPPort.SUPERVISOR:
            answer = self.cf.supervisor(channel, data)
            if answer is not None:
                self._reply(port, 0 if channel == 0 else 1, answer)
        elif port == CRTPPort.SETPOINT_HL:
            self.cf.high_level(data)

    def _toc(self, port: int, data: bytes) -> None:
        entries = LOG_TOC if port == CRTPPort.LOGGING else ()
        if data[0] == 3:  # CMD_TOC_INFO_V2: count, crc
            self._reply(port, 0, bytes((3,)) + struct.pack("<HI", len(entries), 0x5EED + port))
        elif data[0] == 2:  # CMD_TOC_ITEM_V2
            index = data[1] | data[2] << 8
            group, name = entries[index]
            self._reply(port, 0, bytes((2, data[1], data[2], 0x07))
                        + group.encode() + b"\0" + name.encode() + b"\0")

    def _log_settings(self, data: bytes) -> None:
        command, block = data[0], data[1] if len(data) > 1 else 0
        if command == 6:  # CMD_CREATE_BLOCK_V2: (type, id low, id high) per variable
            ids = [data[i + 1] | data[i + 2] << 8 for i in range(2, len(data), 3)]
            self._blocks[block] = ([LOG_TOC[i] for i in ids], None)
        elif command == 3:  # CMD_START_LOGGING: period in 10 ms
            self._blocks[block] = (self._blocks[block][0], data[2] / 100.0)
        elif command == 4:  # CMD_STOP_LOGGING
            self._blocks[block] = (self._blocks[block][0], None)
        self._reply(CRTPPort.LOGGING, 1, bytes((command, block, 0)))

    def _memory(self, channel: int, data: bytes) -> None:
        if channel == 0 and data[0] == 1:  # CMD_INFO_NBR
            self._reply(CRTPPort.MEM, 0, bytes((1, 1)))
        elif channel == 0 and data[0] == 2:  # CMD_INFO_DETAILS
            self._reply(CRTPPort.MEM, 0, bytes((2, 0, TRAJECTORY_MEMORY))
                        + struct.pack("<I", len(self.cf.memory)) + bytes(8))
        elif channel == 2:  # write: memory id, address, data
            ident, address = struct.unpack("<BI", data[:5])
            chunk = data[5:]
            self.cf.memory[address:address + len(chunk)] = chunk
            self._reply(CRTPPort.MEM, 2, bytes((ident,)) + struct.pack("<IB", address, 0))

    def _stream(self) -> None:
        last: dict[int, float] = {}
        while not self._closed.wait(0.005):
            now = time.monotonic()
            for block, (variables, period) in list(self._blocks.items()):
                if period is None or not self.cf.streaming or now - last.get(block, 0) < period:
                    continue
                last[block] = now
                x, y, z = self.cf.where()
                values = {("stateEstimate", "x"): x, ("stateEstimate", "y"): y,
                          ("stateEstimate", "z"): z, ("pm", "vbat"): self.cf.vbat}
                stamp = int(now * 1000) & 0xFFFFFF
                payload = bytes((block,)) + struct.pack("<I", stamp)[:3] + b"".join(
                    struct.pack("<f", values[v]) for v in variables)
                self._reply(CRTPPort.LOGGING, 2, payload)


def install() -> None:
    """Make cflib find :class:`EmulatedLink` for ``emulated://`` URIs (this process only)."""
    if EmulatedLink not in CLASSES:
        CLASSES.append(EmulatedLink)
