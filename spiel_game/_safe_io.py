"""Reading files that may be hostile: regular files only, sizes bounded first.

Results folders, config files and record files come from other people. A
FIFO in their place would block a reader forever, and a symbolic link to
``/dev/zero`` would fill memory. Every reader of such a file goes through
this module:

- :func:`read_bytes` and :func:`read_text`: the whole file, if it is a
  regular file of at most ``max_bytes``;
- :func:`open_regular`: the file opened for binary reading, with the same
  checks;
- :func:`iter_lines`: the lines of a regular file one by one, each at most
  ``max_line_bytes`` long, so memory stays bounded for a file of any length.

The checks come before any byte is read. The file is checked with ``stat``
(a link is followed to what it names), opened without blocking, and checked
again on the open descriptor, in case it was swapped in between. A folder,
a FIFO, a device or a socket raises :class:`RefusedFile`, and so does a file
longer than the limit. The message names the file, what it is, and what is
allowed. A missing file raises the usual :class:`FileNotFoundError`, since
callers treat a missing file in their own way; other OS errors pass through.

Example::

    from spiel_game._safe_io import RefusedFile, read_text
    try:
        text = read_text("config.toml", max_bytes=1 << 20, what="config file")
    except RefusedFile as err:
        print(err)      # config file config.toml is a FIFO; allowed: a regular file
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

__all__ = ["RefusedFile", "open_regular", "read_bytes", "read_text", "iter_lines", "kind"]


class RefusedFile(ValueError):
    """A file that is not read: not a regular file, or longer than allowed.

    ``str(err)`` is the whole message (``"<what> <path> is a FIFO; allowed: a
    regular file"``). :attr:`problem` is the part after the path (``"is a
    FIFO; allowed: a regular file"``), for callers that say the path their own
    way."""

    def __init__(self, path, what: str, problem: str):
        self.path, self.what, self.problem = Path(path), what, problem
        super().__init__(f"{what} {path} {problem}")


def kind(mode: int) -> str:
    """What a file of ``mode`` (``st_mode``) is, in words: ``"a regular file"``,
    ``"a folder"``, ``"a FIFO"``, ``"a device"``, ``"a socket"``, ``"a symbolic link"``."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _check(path, st: os.stat_result, what: str, max_bytes: int | None) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise RefusedFile(path, what, f"is {kind(st.st_mode)}; allowed: a regular file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise RefusedFile(path, what, f"is {st.st_size:,} bytes long; the limit is "
                                      f"{max_bytes:,} bytes")


def open_regular(path, max_bytes: int | None = None, what: str = "file"):
    """``path`` opened for binary reading if it is a regular file (a link is
    followed) of at most ``max_bytes`` (None: any length). Otherwise
    :class:`RefusedFile`. Nothing blocks: a FIFO is refused before it is
    opened, and the file is opened non-blocking and checked again."""
    _check(path, os.stat(path), what, max_bytes)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        _check(path, os.fstat(fd), what, max_bytes)     # swapped between stat and open
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them
    (:class:`RefusedFile` otherwise, also when the file grows past the limit
    while it is read)."""
    with open_regular(path, max_bytes, what) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise RefusedFile(path, what, f"grew past the limit of {max_bytes:,} bytes while it "
                                      f"was read")
    return data


def read_text(path, max_bytes: int, what: str = "file", encoding: str = "utf-8") -> str:
    """:func:`read_bytes` decoded (``UnicodeDecodeError`` passes through)."""
    return read_bytes(path, max_bytes, what).decode(encoding)


def iter_lines(path, max_line_bytes: int, what: str = "file") -> Iterator[bytes]:
    """The lines of the regular file ``path`` (bytes, each with its ``\\n`` if
    it has one), read in blocks. A line longer than ``max_line_bytes`` raises
    :class:`RefusedFile` naming its number. Memory stays bounded by the
    limit, whatever the file's length."""
    with open_regular(path, None, what) as f:
        no = 0
        while True:
            line = f.readline(max_line_bytes + 1)
            if not line:
                return
            no += 1
            if len(line) > max_line_bytes and not (len(line) == max_line_bytes + 1
                                                   and line.endswith(b"\n")):
                raise RefusedFile(path, what, f"has a line (line {no}) longer than "
                                              f"{max_line_bytes:,} bytes")
            yield line
