"""Write the whistle detector's synthetic corpus as WAV files, with their whistles' onsets.

    python scripts/whistle_corpus.py OUT_DIR [--minutes 5] [--rate 48000] [--overlays 4]

For each whistle-to-noise (+6, 0, -6 dB) ``--minutes`` one-minute scenes with ten whistles
(three-chamber pea-less whistles of three pitches, pea whistles' trills) in crowd and hooves,
horns, lip whistles and (with espeak-ng) an announcer; and ``--quiet`` minutes of the same
arena without a whistle. Issue 44's mixes, ``--overlays`` 3.5 s scenes of each: a whistle
with speech, crowd, hooves, the arena horn or the announcer through a PA over it (speech and
the announcer need espeak-ng, the PA sox; skipped without them), two whistles 0.4 s apart,
and a whistle with a slow attack, each at 0, -6 and -12 dB whistle-to-overlay
(``over_<kind>_<dB>dB_<n>.wav``). ``truth.json`` lists each file's onsets (seconds). The
tests make short scenes of their own; this is for benchmarks and for listening.
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
    ap.add_argument("--overlays", type=int, default=4,
                    help="scenes per kind of mix and whistle-to-overlay ratio (issue 44)")
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
    sox = shutil.which("sox") is not None
    for what in S.OVERLAYS + S.CASES:
        if (what == "speech" and not voices) or (what == "announcer" and not (voices and sox)):
            print(f"skipped {what}: needs espeak-ng{' and sox' if what == 'announcer' else ''}")
            continue
        slug = "two_whistles" if what == S.CASES[0] else what.replace(" ", "_")
        for snr in (0.0, -6.0, -12.0):
            for k in range(a.overlays):
                x, ats = S.over(a.rate, what, snr, seed=7000 + 100 * k - int(snr))
                name = f"over_{slug}_{snr:+.0f}dB_{k:02d}.wav"
                S.write_wav(a.out / name, x, a.rate)
                truth[name] = ats
    (a.out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    print(f"{len(truth)} files in {a.out}")


if __name__ == "__main__":
    main()
