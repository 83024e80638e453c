"""Write the whistle detector's synthetic corpus as WAV files, with their whistles' onsets.

    python scripts/whistle_corpus.py OUT_DIR [--minutes 5] [--rate 48000]

For each whistle-to-noise (+6, 0, -6 dB) ``--minutes`` one-minute scenes with ten whistles
(three-chamber pea-less whistles of three pitches, pea whistles' trills) in crowd and hooves,
horns, lip whistles and (with espeak-ng) an announcer; and ``--quiet`` minutes of the same
arena without a whistle. ``truth.json`` lists each file's onsets (seconds). The tests make
short scenes of their own; this is for benchmarks and for listening.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from chukker.whistle import synthetic as S


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--minutes", type=int, default=5)
    ap.add_argument("--quiet", type=int, default=10, help="minutes without a whistle")
    ap.add_argument("--rate", type=int, default=48000)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    voices = shutil.which("espeak-ng") is not None
    truth: dict[str, list[float]] = {}
    for snr in (6.0, 0.0, -6.0):
        for k in range(a.minutes):
            x, t = S.scene(a.rate, 60.0, seed=1000 * k + int(snr), whistles=10, snr_db=snr,
                           voices=voices)
            name = f"whistles_{snr:+.0f}dB_{k:02d}.wav"
            S.write_wav(a.out / name, x, a.rate)
            truth[name] = [w.at for w in t]
    for k in range(a.quiet):
        x, _ = S.scene(a.rate, 60.0, seed=5000 + k, whistles=0, voices=voices)
        name = f"quiet_{k:02d}.wav"
        S.write_wav(a.out / name, x, a.rate)
        truth[name] = []
    (a.out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    print(f"{len(truth)} files in {a.out}")


if __name__ == "__main__":
    main()
