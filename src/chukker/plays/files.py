"""Reading tracking and GPS data files within chukker's caps (:mod:`chukker.limits`).

pyarrow guesses a compression from a file's name (``fixes.csv.bz2`` is inflated
without limit) and reads any Parquet footer it is given. Here a file is read as
the format its caller names, never by its extension's compression:

* compressed files (by their magic bytes: gzip, bzip2, xz, zstd, lz4, zip, 7z) are
  refused, whatever their name;
* a CSV is read from its bytes (size capped, rows counted before parsing);
* a Parquet file's footer is read first: its row count and its declared decoded
  size are capped before any column is decoded (Parquet's own page compression
  is the one compressed input chukker reads, with that cap).

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = p.write_text("t,entity,x,y\\n0,ball,1,2\\n")
>>> read_table(p, "csv").num_rows
1
>>> _ = p.write_bytes(b"BZh91AY&SY" + bytes(30))
>>> read_table(p, "csv")
Traceback (most recent call last):
...
chukker.limits.LimitError: t.csv: a bzip2-compressed file; send it uncompressed
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from chukker import limits

PARQUET_MAGIC = b"PAR1"


def kind_of(path: str | Path) -> Literal["csv", "parquet"]:
    """``parquet`` for ``.parquet``/``.pq`` or a file with Parquet's magic, else ``csv``."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        return "parquet"
    try:
        with p.open("rb") as f:
            if f.read(4) == PARQUET_MAGIC:
                return "parquet"
    except OSError:
        pass
    return "csv"


def read_table(
    path: str | Path,
    kind: Literal["csv", "parquet"],
    convert: Any = None,
    *,
    max_rows: int = limits.MAX_ROWS,
    max_bytes: int = limits.MAX_DATA_BYTES,
    where: str | None = None,
) -> Any:
    """The file at ``path`` as a ``pyarrow.Table``, read as ``kind`` within the caps.

    ``convert`` is a ``pyarrow.csv.ConvertOptions`` for a CSV. Raises
    :class:`chukker.limits.LimitError` over a cap (or for a compressed file) and
    ``OSError`` when the file cannot be read; pyarrow's own errors for malformed content.
    """
    import pyarrow as pa  # type: ignore[import-untyped]

    p = Path(path)
    name = where or p.name
    size = p.stat().st_size
    limits.verify_size(size, max_bytes, name)
    with p.open("rb") as f:
        head = f.read(8)
    limits.verify_not_compressed(head, name)
    if kind == "parquet":
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        pf = pq.ParquetFile(p)
        meta = pf.metadata
        limits.verify_rows(meta.num_rows, max_rows, name)
        decoded = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        limits.verify_size(decoded, limits.MAX_PARQUET_DECODED_BYTES, f"{name} (decoded)")
        return pf.read()
    import pyarrow.csv as pacsv  # type: ignore[import-untyped]

    data = p.read_bytes()
    limits.verify_rows(max(0, data.count(b"\n") - 1), max_rows, name)
    # from a buffer: no compression is guessed from the name
    return pacsv.read_csv(pa.BufferReader(data), convert_options=convert)
