"""FIT files (Garmin, Wahoo, Coros, ...): two readers with one answer per file.

* :func:`read_fit_fast` walks the messages by their headers, jumps over each run of one
  data message in a single NumPy comparison and gathers the ``record`` fields with
  NumPy (tens of times faster than a message-by-message reader);
* :func:`read_fit_decode` reads with ``fitdecode`` (maintained, pure Python, the Garmin
  profile): the reference, and the reader of what the fast one leaves to it
  (compressed timestamp headers, a record field of an unexpected size, a file whose
  messages do not read).

:func:`read_fit` uses the fast reader and hands the file to ``fitdecode`` whenever the
fast reader declines, so a refusal's words are always ``fitdecode``'s. What both
readers share (and so answer alike):

* **Chained files.** A FIT file may be followed by others (an activity, then a settings
  file). The layout comes from the headers (:func:`layout`): every chained file whose
  messages read is read, its records after the first's, and said so in a note; one
  that is cut short or does not read is skipped, and said so. The first file's header
  promising more bytes than there are is a refusal, at once.
* **CRC.** A header or file CRC that does not match its bytes is reported in a note; the
  points are kept, since the data messages themselves read (a file whose messages do
  not read is refused).
* The points then go through :func:`chukker.plays.devices.finish` (dropped and counted
  by reason, the 5% rule, the records of one second spread over it).
"""

from __future__ import annotations

import io
import math
import warnings
from typing import Any

import numpy as np

from chukker.plays.device_track import MAX_POINTS, DeviceError, DeviceKind, DeviceTrack, finish

_SEMICIRCLE_DEG = 180.0 / 2**31
_FIT_EPOCH = 631065600  # 1989-12-31T00:00:00Z, the FIT protocol's time zero


def _crc_tables() -> tuple[list[int], list[int]]:
    one = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xA001 if c & 1 else c >> 1
        one.append(c)
    two = [0] * 65536
    for w in range(65536):
        c = one[w & 0xFF]
        two[w] = (c >> 8) ^ one[(c ^ (w >> 8)) & 0xFF]
    return one, two


_CRC1: list[int] = []
_CRC2: list[int] = []


def crc16(data: bytes | memoryview) -> int:
    """The FIT protocol's CRC (CRC-16/ARC), two bytes a step.

    >>> hex(crc16(b"123456789"))
    '0xbb3d'
    """
    global _CRC1, _CRC2
    if not _CRC2:
        _CRC1, _CRC2 = _crc_tables()
    two, one = _CRC2, _CRC1
    mv = memoryview(data)
    n = len(mv) // 2 * 2
    c = 0
    for w in np.frombuffer(mv[:n], dtype="<u2").tolist():
        c = two[c ^ w]
    for b in bytes(mv[n:]):
        c = (c >> 8) ^ one[(c ^ b) & 0xFF]
    return c


def layout(data: bytes, name: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The chained FIT files in ``data``: (start, end) of each that is whole, and notes
    for what is skipped. The first file's header must hold its promise."""
    parts: list[tuple[int, int]] = []
    notes: list[str] = []
    pos = 0
    while pos < len(data):
        h = data[pos]
        head_ok = (pos + 12 <= len(data) and h in (12, 14) and pos + h <= len(data)
                   and data[pos + 8 : pos + 12] == b".FIT")
        if not head_ok:
            if not parts:
                raise DeviceError(f"{name}: not a FIT file (its header does not read)")
            notes.append(f"{len(data) - pos} bytes after byte {pos} are not a FIT file: "
                         "skipped")
            break
        size = int.from_bytes(data[pos + 4 : pos + 8], "little")
        end = pos + h + size + 2
        if end > len(data):
            if not parts:
                raise DeviceError(
                    f"{name}: the FIT header promises {size} bytes of messages; the file "
                    f"has {max(0, len(data) - h - 2)}")
            notes.append(f"FIT file {len(parts) + 1}, chained after byte {pos}, is cut "
                         f"short (its header promises {size} bytes): skipped")
            break
        parts.append((pos, end))
        pos = end
    return parts, notes


def _crc_note(k: int, m: int, where: str) -> str:
    which = "" if m == 1 else f"FIT file {k} of {m}: "
    return (f"{which}its {where} CRC does not match its bytes; its points are kept, "
            "since its messages read")


def _chain_note(k: int, m: int, records: int | None) -> str:
    if records is None:
        return f"FIT file {k} of {m}, chained after the first, does not read: skipped"
    return f"FIT file {k} of {m}, chained after the first, is read ({records} records)"


def read_fit(data: bytes, name: str) -> DeviceTrack:
    """A FIT file's ``record`` fixes (see the module's docstring)."""
    try:
        fast = read_fit_fast(data, name)
    except DeviceError:
        raise
    except Exception:  # noqa: BLE001 - bytes it did not foresee: fitdecode's turn
        fast = None
    return fast if fast is not None else read_fit_decode(data, name)


# ------------------------------------------------------------------------ fitdecode


def read_fit_decode(data: bytes, name: str) -> DeviceTrack:
    """The reference reader: ``fitdecode``, one chained file at a time."""
    parts, skipped = layout(data, name)
    cols: list[list[float]] = [[], [], [], []]
    notes: list[str] = []
    for k, (a, b) in enumerate(parts, start=1):
        try:
            got, bad = _decode_part(data[a:b], len(cols[0]))
        except _TooMany:
            raise DeviceError(f"{name}: more than {MAX_POINTS} points in one device file"
                              ) from None
        except _Unreadable as exc:
            if k == 1:
                raise DeviceError(f"{name}: record {exc.record}: not a readable FIT file: "
                                  f"{exc.why[:160]}") from None
            notes.append(_chain_note(k, len(parts), None))
            continue
        notes += [_crc_note(k, len(parts), w) for w in bad]
        if k > 1:
            notes.append(_chain_note(k, len(parts), len(got[0])))
        for c, g in zip(cols, got, strict=True):
            c.extend(g)
    return finish(DeviceKind.FIT, name, cols[0], cols[1], cols[2], cols[3],
                  whole_seconds=True, notes=tuple(notes + skipped))


class _TooMany(Exception):
    """More than :data:`MAX_POINTS` records."""


class _Unreadable(Exception):
    def __init__(self, record: int, why: str) -> None:
        super().__init__(why)
        self.record, self.why = record, why


def _decode_part(part: bytes, before: int) -> tuple[list[list[float]], list[str]]:
    import fitdecode  # type: ignore[import-untyped]

    t: list[float] = []
    lat: list[float] = []
    lon: list[float] = []
    speed: list[float] = []
    n = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with fitdecode.FitReader(io.BytesIO(part), check_crc=fitdecode.CrcCheck.WARN,
                                     keep_raw_chunks=False) as fit:
                for frame in fit:
                    if frame.frame_type != fitdecode.FIT_FRAME_DATA or frame.name != "record":
                        continue
                    n += 1
                    if before + n > MAX_POINTS:
                        raise _TooMany
                    v = {f.name: f.value for f in frame.fields if f.value is not None}
                    la, lo = _number(v.get("position_lat")), _number(v.get("position_long"))
                    t.append(_fit_seconds(v.get("timestamp")))
                    lat.append(la * _SEMICIRCLE_DEG)
                    lon.append(lo * _SEMICIRCLE_DEG)
                    speed.append(_number(v.get("enhanced_speed", v.get("speed"))))
        except _TooMany:
            raise
        except fitdecode.FitError as exc:
            raise _Unreadable(n + 1, str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - what garbled bytes make fitdecode raise besides
            # (ValueError "size", AssertionError, struct.error...): unreadable too
            said = f": {exc}" if str(exc) else ""
            raise _Unreadable(n + 1, f"its bytes do not parse ({type(exc).__name__}{said})"
                              ) from None
    bad = []
    for w in caught:
        text = str(w.message).lower()
        if "crc" in text:
            bad.append("header" if "header" in text else "file")
    return [t, lat, lon, speed], bad


def _number(v: Any) -> float:
    """A field's value as a float; NaN for none, or for what garbled bytes make of it (a
    list of values, a string)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return math.nan
    f = float(v)
    return f if math.isfinite(f) else math.nan


def _fit_seconds(ts: Any) -> float:
    """Epoch seconds of a record's ``timestamp`` (a datetime, or FIT seconds); NaN if none."""
    from datetime import UTC, datetime

    if isinstance(ts, datetime):
        try:
            return float(int(ts.replace(tzinfo=ts.tzinfo or UTC).timestamp()))
        except (OverflowError, ValueError, OSError):
            return math.nan
    v = _number(ts)
    return v if math.isnan(v) else float(int(v) + _FIT_EPOCH)


# ------------------------------------------------------------------------ the fast one

#: FIT record fields the fast reader takes: field number -> name, then type and invalid
_FIT_FIELDS = {253: "timestamp", 0: "position_lat", 1: "position_long", 6: "speed",
               73: "enhanced_speed"}
_FIT_TYPES = {"timestamp": "u4", "position_lat": "i4", "position_long": "i4", "speed": "u2",
              "enhanced_speed": "u4"}
_FIT_INVALID = {"timestamp": 0xFFFFFFFF, "position_lat": 0x7FFFFFFF,
                "position_long": 0x7FFFFFFF, "speed": 0xFFFF, "enhanced_speed": 0xFFFFFFFF}


class _Declined(Exception):
    """What the fast reader leaves to fitdecode."""


def read_fit_fast(data: bytes, name: str) -> DeviceTrack | None:
    """The fast reader; ``None`` where it leaves the file to fitdecode (compressed
    timestamp headers, a record field of an unexpected size, messages that do not
    read: fitdecode's words then say why)."""
    parts, skipped = layout(data, name)
    buf = np.frombuffer(data, dtype=np.uint8)
    cols: list[list[Any]] = [[], [], [], []]
    notes: list[str] = []
    total = 0
    for k, (a, b) in enumerate(parts, start=1):
        try:
            got = _fast_part(data, buf, a, b, name, total)
        except _Declined:
            if k == 1:
                return None
            try:  # a chained file that fitdecode would read: its answer, not ours
                _decode_part(data[a:b], total)
            except _Unreadable:
                notes.append(_chain_note(k, len(parts), None))
                continue
            except _TooMany:
                return None
            return None
        h = data[a]
        if h == 14 and data[a + 12 : a + 14] != b"\0\0" and \
                crc16(memoryview(data)[a : a + 12]) != int.from_bytes(data[a + 12 : a + 14],
                                                                        "little"):
            notes.append(_crc_note(k, len(parts), "header"))
        if crc16(memoryview(data)[a : b - 2]) != int.from_bytes(data[b - 2 : b], "little"):
            notes.append(_crc_note(k, len(parts), "file"))
        total += got[0].size
        if k > 1:
            notes.append(_chain_note(k, len(parts), int(got[0].size)))
        for c, g in zip(cols, got, strict=True):
            c.append(g)
    t, lat, lon, speed = (np.concatenate(c) if c else np.empty(0) for c in cols)
    return finish(DeviceKind.FIT, name, t, lat, lon, speed, whole_seconds=True,
                  notes=tuple(notes + skipped))


def _fast_part(data: bytes, buf: Any, start: int, end: int, name: str,
               before: int) -> tuple[Any, Any, Any, Any]:
    """One chained file's records: times (whole epoch seconds), degrees and m/s, NaN
    where a record has none."""
    hsize = data[start]
    body_end = end - 2
    sizes: dict[int, int] = {}  # local type -> data message size (its header byte excluded)
    layouts: dict[int, tuple[bool, tuple[tuple[str, int], ...]] | None] = {}
    starts: dict[tuple[bool, tuple[tuple[str, int], ...]], list[Any]] = {}
    pos, n_records = start + hsize, 0
    while pos < body_end:
        h = data[pos]
        if h & 0x80:
            raise _Declined  # a compressed timestamp header: fitdecode's
        local = h & 0x0F
        if h & 0x40:  # a definition message
            if pos + 6 > body_end:
                raise _Declined
            big = data[pos + 2] == 1
            glob = int.from_bytes(data[pos + 3 : pos + 5], "big" if big else "little")
            nf, q = data[pos + 5], pos + 6
            if q + 3 * nf > body_end:
                raise _Declined
            offs: dict[str, int] = {}
            size = 0
            for k in range(nf):
                num, fsize = data[q + 3 * k], data[q + 3 * k + 1]
                field = _FIT_FIELDS.get(num)
                if glob == 20 and field is not None:
                    if fsize != int(_FIT_TYPES[field][1]):
                        raise _Declined
                    offs[field] = size
                size += fsize
            q += 3 * nf
            if h & 0x20:  # developer fields
                if q >= body_end:
                    raise _Declined
                nd = data[q]
                if q + 1 + 3 * nd > body_end:
                    raise _Declined
                size += sum(data[q + 1 + 3 * k + 1] for k in range(nd))
                q += 1 + 3 * nd
            sizes[local] = size
            layouts[local] = (big, tuple(sorted(offs.items()))) if glob == 20 else None
            pos = q
            continue
        if local not in sizes:
            raise _Declined  # a data message with no definition
        step = sizes[local] + 1
        heads = buf[pos : body_end - step + 1 : step]  # the headers of whole messages
        other = np.flatnonzero(heads != h)
        run = int(other[0]) if other.size else heads.size
        if run == 0:
            raise _Declined  # a data message runs past the end
        lay = layouts[local]
        if lay is not None:
            starts.setdefault(lay, []).append(pos + 1 + np.arange(run) * step)
            n_records += run
            if before + n_records > MAX_POINTS:
                raise DeviceError(f"{name}: more than {MAX_POINTS} points in one device file")
        pos += run * step
    if not starts:
        e = np.empty(0)
        return e, e, e, e
    cols: dict[str, list[Any]] = {f: [] for f in _FIT_TYPES}
    where: list[Any] = []
    for (big, offs_t), chunks in starts.items():
        at = np.concatenate(chunks)
        where.append(at)
        offs = dict(offs_t)
        for field, typ in _FIT_TYPES.items():
            off = offs.get(field)
            if off is None:
                cols[field].append(np.full(at.size, _FIT_INVALID[field], dtype=np.int64))
                continue
            w = int(typ[1])
            raw = np.ascontiguousarray(buf[(at + off)[:, None] + np.arange(w)])
            v = raw.view((">" if big else "<") + typ).ravel().astype(np.int64)
            cols[field].append(v & 0xFFFFFFFF if typ.startswith("i") else v)
    sort = np.argsort(np.concatenate(where), kind="stable")
    c = {f: np.concatenate(v)[sort] for f, v in cols.items()}
    has_t = c["timestamp"] != _FIT_INVALID["timestamp"]
    has_p = ((c["position_lat"] != _FIT_INVALID["position_lat"])
             & (c["position_long"] != _FIT_INVALID["position_long"]))

    def degrees(v: Any) -> Any:
        d = np.where(v >= 2**31, v - 2**32, v).astype(np.float64) * _SEMICIRCLE_DEG
        return np.where(has_p, d, np.nan)

    es, sp = c["enhanced_speed"], c["speed"]
    speed = np.where(es != _FIT_INVALID["enhanced_speed"], es / 1000.0,
                     np.where(sp != _FIT_INVALID["speed"], sp / 1000.0, np.nan))
    t = np.where(has_t, (c["timestamp"] + _FIT_EPOCH).astype(np.float64), np.nan)
    return t, degrees(c["position_lat"]), degrees(c["position_long"]), speed
