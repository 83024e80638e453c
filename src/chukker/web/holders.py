"""One server per port and per SQLite file (issue 40): the listening socket, and who
holds a port or a file when a second server is refused.

A port is bound once, by the process ``chukker serve`` (or ``chukker edge``) starts
as, without ``SO_REUSEPORT``, and listened on at once: another program's bind then
fails (``EADDRINUSE``), whatever options it sets. The supervisor hands that one socket
to its workers (:mod:`chukker.web.workers`), so they share the port with nobody else.

To name the other server in its refusal, each server leaves a note:

* a small JSON file per server process (``serve-<pid>.json``: command, pid, host, ports,
  database) in this user's private folder (:func:`notes_folder`, mode 0700), removed
  when the server stops; a note whose process is gone is ignored and removed;
* on SQLite, the same note inside the lock file beside the database (``<db>.lock``),
  which the server holds with ``flock`` while it serves.

A port held by a program that left no note is looked up in ``/proc`` (the listening
socket's inode, then the process holding it) where that can be read; else the refusal
says "another program". Nothing a client sends reaches this module: the folder and the
names are made here from the process's own numbers.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

#: the most bytes read from a note (a lock file or a server's note)
NOTE_MAX = 4096
#: the listening socket's queue (uvicorn's default; uvicorn sets it again)
BACKLOG = 2048
#: the most notes read while looking for a port's holder (a full folder is junk)
MAX_NOTES = 256
#: the most processes looked at in ``/proc`` for a port's holder
MAX_PROCS = 20_000


@dataclass(frozen=True, slots=True)
class Holder:
    """A server that holds ports (and, on SQLite, a database file)."""

    command: str
    pid: int
    host: str
    ports: tuple[int, ...]
    database: str

    def words(self, *, with_database: bool = True) -> str:
        """>>> Holder("chukker serve", 12, "127.0.0.1", (8000, 8001), "/x/c.sqlite3").words()
        'another `chukker serve` (pid 12, ports 8000 and 8001, database /x/c.sqlite3)'
        """
        ports = " and ".join(str(p) for p in self.ports)
        where = f", port{'s' if len(self.ports) > 1 else ''} {ports}" if self.ports else ""
        db = f", database {self.database}" if self.database and with_database else ""
        return f"another `{self.command}` (pid {self.pid}{where}{db})"

    def to_json(self) -> str:
        return json.dumps({"command": self.command, "pid": self.pid, "host": self.host,
                           "ports": list(self.ports), "database": self.database})

    @classmethod
    def from_json(cls, text: str) -> Holder | None:
        """The note read back, or None for anything that is not one."""
        try:
            d = json.loads(text)
            h = cls(str(d["command"])[:40], int(d["pid"]), str(d["host"])[:100],
                    tuple(int(p) for p in d["ports"][:4]), str(d["database"])[:500])
        except (ValueError, TypeError, KeyError, AttributeError, IndexError):
            return None
        return h if h.pid > 0 and all(0 < p < 65536 for p in h.ports) else None


def shown_database(target: str) -> str:
    """The database as a refusal may show it: a SQLite file's absolute path; a
    PostgreSQL URL without user, password or parameters.

    >>> shown_database("postgresql://u:secret@db.example:5432/chukker?sslmode=require")
    'PostgreSQL db.example:5432/chukker'
    """
    if target.startswith(("postgresql://", "postgres://")):
        u = urlsplit(target)
        try:
            port = f":{u.port}" if u.port else ""
        except ValueError:
            port = ""
        return f"PostgreSQL {u.hostname or 'localhost'}{port}{u.path}"
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    return os.path.abspath(path)


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` and listening, without ``SO_REUSEPORT``:
    nobody else can bind the port while it is open (``SO_REUSEADDR`` only lets a port
    in ``TIME_WAIT`` after a restart be had again). Raises ``OSError`` (and
    ``OverflowError``/``UnicodeError`` for a bad address)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)  # at once: two bound sockets that do not listen may share
    except BaseException:
        sock.close()
        raise
    return sock


# ------------------------------------------------------------------ the notes
def notes_folder(create: bool = False) -> Path | None:
    """This user's folder of servers' notes: ``$XDG_RUNTIME_DIR/chukker-servers``, else
    ``chukker-servers-<uid>`` in the system's temporary folder; None when it is missing
    or not private (another user's, a link, a mode other than 0700)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base):
        folder = Path(base) / "chukker-servers"
    else:
        folder = Path(tempfile.gettempdir()) / f"chukker-servers-{os.getuid()}"
    if create:
        with contextlib.suppress(FileExistsError, OSError):
            folder.mkdir(mode=0o700)
    try:
        st = folder.lstat()
    except OSError:
        return None
    if (not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid()
            or stat.S_IMODE(st.st_mode) != 0o700):
        return None
    return folder


def leave_note(holder: Holder) -> Path | None:
    """Write ``holder``'s note (atomically); its path, or None if it could not be."""
    folder = notes_folder(create=True)
    if folder is None:
        return None
    path = folder / f"serve-{holder.pid}.json"
    part = folder / f".serve-{holder.pid}.part"
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(holder.to_json())
        os.replace(part, path)
    except OSError:
        return None
    return path


def take_note_away(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()


def _read(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        return f.read(NOTE_MAX).decode("utf-8", "replace")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a pid used again by some other program
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        return b"chukker" in cmd
    return True


def notes() -> list[Holder]:
    """The notes of the servers still running (those of servers gone are removed)."""
    folder = notes_folder()
    if folder is None:
        return []
    found = []
    with contextlib.suppress(OSError):
        for path in sorted(folder.glob("serve-*.json"))[:MAX_NOTES]:
            try:
                h = Holder.from_json(_read(path))
            except OSError:
                continue
            if h is None or not _alive(h.pid):
                take_note_away(path)
            else:
                found.append(h)
    return found


def _same_address(a: str, b: str) -> bool:
    wild = ("", "0.0.0.0", "::")
    return a == b or a in wild or b in wild


# ------------------------------------------------------------- who holds what
def who_holds_port(host: str, port: int) -> str:
    """Who listens on ``host:port``, in words: a server's note, else ``/proc``'s
    answer, else "another program"."""
    me = os.getpid()
    for h in notes():
        if h.pid != me and port in h.ports and _same_address(h.host, host):
            return h.words()
    pid = _listening_pid(port)
    if pid is None:
        return "another program"
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"another program (pid {pid})"
    words = [w.decode("utf-8", "replace") for w in cmd if w]
    if any("chukker" in w for w in words):
        return f"another `chukker {'edge' if 'edge' in words else 'serve'}` (pid {pid})"
    name = os.path.basename(words[0])[:40] if words else "?"
    return f"another program (pid {pid}, {name})"


def _listening_inodes(port: int) -> set[str]:
    """The inodes of the TCP sockets listening on ``port`` (``/proc/net/tcp``, ``tcp6``)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as f:
            next(f, None)
            for line in f:
                cols = line.split()
                if len(cols) > 9 and cols[3] == "0A" and cols[1].endswith(f":{port:04X}"):
                    inodes.add(cols[9])
    inodes.discard("0")
    return inodes


def _listening_pid(port: int) -> int | None:
    """The process listening on ``port`` (the first of several sharing it: the one whose
    parent is not among them), if this user may see it."""
    inodes = _listening_inodes(port)
    if not inodes:
        return None
    wanted = {f"socket:[{i}]" for i in inodes}
    holders: list[int] = []
    me = os.getpid()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()][:MAX_PROCS]
    except OSError:
        return None
    for pid in pids:
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{fd}") in wanted:
                    holders.append(pid)
                    break
    for pid in holders:
        if _parent(pid) not in holders:
            return pid
    return holders[0] if holders else None


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


# ------------------------------------------------------------ the SQLite lock
def write_lock_note(f: IO[Any], holder: Holder) -> None:
    """Say who holds the lock file ``f`` (held with ``flock``), inside it."""
    with contextlib.suppress(OSError):
        f.seek(0)
        f.truncate()
        f.write(holder.to_json())
        f.flush()


def lock_holder(f: IO[Any]) -> Holder | None:
    """The note in a lock file somebody else holds, if it is there and its server runs."""
    try:
        f.seek(0)
        text = f.read(NOTE_MAX)
    except (OSError, ValueError):
        return None
    h = Holder.from_json(text) if isinstance(text, str) else None
    return h if h is not None and h.pid != os.getpid() and _alive(h.pid) else None
