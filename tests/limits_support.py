"""Helpers of the import-limit tests: running `gradual` in a child process whose peak memory is
measured, and editing zip archives at the byte level (sizes a member declares, counts an end
record declares) as an adversary would."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import zipfile
from dataclasses import dataclass

#: a child that runs `gradual.cli.main` on its arguments and reports its own peak RSS (KiB) on
#: its last line of stderr: /proc's VmHWM is the process image's own (getrusage's ru_maxrss
#: keeps the parent's peak across fork and exec, and RUSAGE_CHILDREN mixes every child)
_DRIVER = """
import sys
from gradual.cli import main
try:
    code = main(sys.argv[1:], exiting=True)
except SystemExit as stop:
    code = stop.code
sys.stdout.flush()
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:")).split()[1]
sys.stderr.write("\\npeak-rss-kib %s\\n" % peak)
sys.exit(code)
"""


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    peak_mib: float


def run_measured(args: list, env: dict | None = None, timeout: float = 300) -> Outcome:
    """`gradual ARGS` in a child process: its exit code, output and peak resident memory."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, *args], capture_output=True, text=True, env=full_env, timeout=timeout
    )
    stderr, _, last = done.stderr.rstrip().rpartition("\n")
    assert last.startswith("peak-rss-kib "), done.stderr[-2000:]
    return Outcome(done.returncode, done.stdout, stderr, int(last.split()[1]) / 1024)


def rezip(data: bytes, edit, compression: int = zipfile.ZIP_STORED) -> bytes:
    """The archive with each member's bytes passed through `edit(name, bytes)` (None drops it),
    written with `compression`."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w", compression) as zout:
        for info in zin.infolist():
            content = edit(info.filename, zin.read(info.filename))
            if content is not None:
                zout.writestr(info.filename, content)
    return out.getvalue()


def declare_size(data: bytes, suffix: str, size: int) -> bytes:
    """The archive with the member ending in `suffix` declaring `size` uncompressed bytes in its
    central directory entry (what zipfile reads) and its local header: its data is unchanged."""
    out = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = next(i for i in zf.infolist() if i.filename.endswith(suffix))
        name = info.filename.encode()
    at = 0
    while True:
        at = out.find(b"PK\x01\x02", at)
        assert at >= 0, "no central directory entry"
        (name_length,) = struct.unpack_from("<H", out, at + 28)
        if bytes(out[at + 46 : at + 46 + name_length]) == name:
            struct.pack_into("<I", out, at + 24, size)
            (local,) = struct.unpack_from("<I", out, at + 42)
            struct.pack_into("<I", out, local + 22, size)
            return bytes(out)
        at += 4


def declare_members(data: bytes, count: int) -> bytes:
    """The archive whose end record declares `count` members (through a zip64 end record past
    65,534), its central directory unchanged."""
    out = bytearray(data)
    at = out.rfind(b"PK\x05\x06")
    if count < 0xFFFF:
        struct.pack_into("<HH", out, at + 8, count, count)
        return bytes(out)
    size_cd, offset_cd = struct.unpack_from("<II", out, at + 12)
    record = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size_cd, offset_cd)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, at, 1)
    struct.pack_into("<HH", out, at + 8, 0xFFFF, 0xFFFF)
    return bytes(out[:at]) + record + locator + bytes(out[at:])
