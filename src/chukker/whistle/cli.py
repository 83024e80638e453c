"""``chukker whistle``: learn an umpire's whistle from a recording, list its blasts in another."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from numpy.typing import NDArray

from chukker.whistle.detector import Blast, Calibration, Profile, Stream
from chukker.whistle.wav import WavError, blocks, open_wav

app = typer.Typer(
    name="whistle",
    help="The umpire's whistle: calibrate a profile, detect blasts in a WAV file.",
    no_args_is_help=True,
    add_completion=False,
)

#: a profile is a few hundred bytes: anything much bigger is not one
PROFILE_MAX_BYTES = 64 * 1024


def _fail(msg: str) -> typer.Exit:
    """A refusal: one line on stderr, exit status 1."""
    sys.stderr.write(f"chukker whistle: {msg}\n")
    return typer.Exit(1)


def _stream(file: Path, push: Callable[[NDArray[np.float64]], object], sr: Callable[[int], None]
            ) -> None:
    """Feed ``push`` the samples of ``file``, a window at a time (``sr`` first hears the
    rate); a file that is not one we read is refused in one line."""
    try:
        fh, info = open_wav(file)
        with fh:
            sr(info.sr)
            for block in blocks(fh, info):
                push(block)
    except WavError as e:
        raise _fail(f"{file}: {e}") from None


def steady_tone_words(hz: float | None) -> str:
    """Why a file of one steady tone (a sine wave, a lip whistle) holds no blast, and what
    to record instead; empty if the file is not that."""
    if hz is None:
        return ""
    return (f"It holds one steady tone (about {hz:.0f} Hz). One tone that does not warble "
            "reads as a person whistling with the lips, which an umpire's whistle is not: "
            "a pea-less whistle sounds two or three tones at once, and a pea whistle's pea "
            "trills its one tone. A sine wave from a tone generator is such a tone, and is "
            "never heard as a whistle. Record the umpire's own whistle instead: three blasts, "
            "a second apart, near the microphone (WAV, 16-48 kHz).")


def read_profile(path: Path) -> Profile:
    """A profile file (``ValueError`` saying why not)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(PROFILE_MAX_BYTES + 1)
    except OSError as e:
        raise ValueError(f"cannot read it: {e.strerror}") from None
    if len(data) > PROFILE_MAX_BYTES:
        raise ValueError(f"too large for a profile (more than {PROFILE_MAX_BYTES} bytes)")
    try:
        d = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("not JSON") from None
    return Profile.from_json(d)


def _kind(p: Profile) -> str:
    return "a pea whistle (trill)" if p.kinds == ("trill",) else "a pea-less whistle"


@app.command("calibrate")
def calibrate_cmd(
    file: Annotated[
        Path, typer.Argument(help="A WAV recording of 3 or more blasts of one whistle.")
    ],
    out: Annotated[Path, typer.Option("-o", "--output", help="Where to write the profile (JSON).")],
    name: Annotated[str, typer.Option(help="A name for the profile.")] = "calibrated",
) -> None:
    """Learn a whistle's tones from FILE and write its profile."""
    cal: list[Calibration] = []
    _stream(file, lambda x: cal[0].push(x), lambda sr: cal.append(Calibration(sr)))
    try:
        prof = cal[0].profile(name[:80])
    except ValueError as e:
        hint = steady_tone_words(cal[0].stream.steady_tone())
        raise _fail(f"{file}: {e}" + (f". {hint}" if hint else "")) from None
    out.write_text(json.dumps(prof.to_json(), indent=2) + "\n", encoding="utf-8")
    tones = ", ".join(f"{t:.0f} Hz" for t in prof.tones_hz)
    used = ", ".join(f"{b:.2f} s" for b in prof.blasts)
    typer.echo(f"{_kind(prof)}: tones {tones}; {len(prof.blasts)} blasts used (at {used}).")
    typer.echo(f"Profile written to {out}.")


@app.command("detect")
def detect_cmd(
    file: Annotated[Path, typer.Argument(help="A WAV file, 16-48 kHz, mono or stereo.")],
    profile: Annotated[
        Path | None, typer.Option("--profile", help="A profile from `chukker whistle calibrate`.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of {at, score}.")] = False,
) -> None:
    """List the onsets of the whistle's blasts in FILE (seconds from its start)."""
    prof = None
    if profile is not None:
        try:
            prof = read_profile(profile)
        except ValueError as e:
            raise _fail(f"{profile}: {e}") from None
    streams: list[Stream] = []
    blasts: list[Blast] = []
    _stream(file, lambda x: blasts.extend(streams[0].push(x)),
            lambda sr: streams.append(Stream(sr, prof)))
    if prof is None:
        sys.stderr.write("no profile given: using the default for common pea-less whistles "
                         "(calibrate yours with `chukker whistle calibrate`)\n")
    hint = "" if blasts else steady_tone_words(streams[0].steady_tone())
    if as_json:
        typer.echo(json.dumps([{"at": b.at, "score": b.score} for b in blasts]))
        if hint:
            sys.stderr.write(hint + "\n")
        return
    for b in blasts:
        typer.echo(f"{b.at:10.3f} s  score {b.score:.2f}")
    typer.echo(f"{len(blasts)} blast(s).")
    if hint:
        typer.echo(hint)
