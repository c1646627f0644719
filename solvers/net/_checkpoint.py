"""Checkpoints of the policy-value network, readable without torch.

A checkpoint is one ``.npz`` file (numpy, ``allow_pickle=False``): the
model's ``state_dict`` as arrays named ``param/<name>`` and ``config``, a
JSON string: ``format`` (:data:`FORMAT`), ``layout`` (the game family:
``base`` parameters and ``players``, see
:class:`solvers.net._features.FeatureLayout`), ``layout_fingerprint``, the
sizes (``input_size``, ``num_actions``, ``max_players``, ``hidden``,
``blocks``), ``seed``, ``step`` (optimizer steps so far), ``generation``, the
package ``versions``, the git ``commit`` and whatever the caller adds.
:func:`read_checkpoint` checks all of it and raises
:class:`CheckpointError` naming the file and what is wrong.

**Reading is bounded.** A checkpoint is untrusted input (anyone can hand one
to an agent), so reading one costs at most about the size of the network it
declares, and never more than :data:`MAX_PARAMETERS` float32 values: only a
regular file is opened (a FIFO, a device or a folder is refused before it can
block), at most :data:`MAX_FILE_BYTES` long; the zip directory is checked
(at most :data:`MAX_MEMBERS` members, each named ``config.npy`` or
``param/<name>.npy``, stored or deflated, its declared size within the limits)
before any member is decompressed; the config is read first and its sizes
checked against :data:`LIMITS` and their parameter count against
:data:`MAX_PARAMETERS`; every parameter's name, dtype (float32 only: nothing is
cast) and shape is checked from its header before its data are read, and no
member yields more than its declared size. Nothing is unpickled.
"""

from __future__ import annotations

import json
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from spiel_game._checks import shorten

__all__ = ["FORMAT", "CheckpointError", "read_checkpoint", "write_checkpoint", "read_npz",
           "write_npz", "check_sizes", "open_regular_file", "LIMITS", "MAX_PARAMETERS",
           "MAX_FILE_BYTES", "MAX_MEMBERS", "MAX_CONFIG_BYTES", "WEIGHT_DTYPES",
           "param_shapes", "versions"]

FORMAT = "cancellation-hearts-policy-value-mlp/1"
_SIZE_KEYS = ("input_size", "num_actions", "max_players", "hidden", "blocks")

#: Allowed range ``(low, high)`` of each size in a policy-value checkpoint's config.
LIMITS = {"input_size": (1, 1 << 20), "num_actions": (1, 1 << 16), "max_players": (1, 64),
          "hidden": (1, 8192), "blocks": (0, 64)}
#: The most float32 parameters a checkpoint may declare (128 MiB of weights).
MAX_PARAMETERS = 1 << 25
#: The most members (arrays) in a checkpoint file.
MAX_MEMBERS = 1024
#: The most bytes of the JSON config member.
MAX_CONFIG_BYTES = 1 << 20
#: The longest checkpoint file, and the most bytes all its members may declare.
MAX_FILE_BYTES = 4 * MAX_PARAMETERS + MAX_CONFIG_BYTES + MAX_MEMBERS * (1 << 12)
_F32 = np.dtype("<f4")
#: The dtypes a checkpoint's config may declare for its weights (``weights_dtype``;
#: absent: float32). float16 weights (the shipped models, :mod:`solvers.net.zoo`)
#: are widened to float32 on load, as declared.
WEIGHT_DTYPES = {"float32": _F32, "float16": np.dtype("<f2")}
_MEMBER = re.compile(r"config\.npy|param/[A-Za-z0-9_.]{1,200}\.npy")


class CheckpointError(ValueError):
    """A checkpoint file that is missing, damaged, of another format, or made for
    other games than the one it is used with."""


def param_shapes(config: dict) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` names and shapes of a network of ``config``'s sizes."""
    D, A, V = config["input_size"], config["num_actions"], config["max_players"]
    H, nb = config["hidden"], config["blocks"]
    out = {"embed.weight": (D, H), "bias0": (H,)}
    for b in range(nb):
        out[f"blocks.{b}.0.weight"] = (H, H)
        out[f"blocks.{b}.0.bias"] = (H,)
        out[f"blocks.{b}.1.weight"] = (H, H)
        out[f"blocks.{b}.1.bias"] = (H,)
    out.update({"policy.weight": (A, H), "policy.bias": (A,),
                "value.weight": (V, H), "value.bias": (V,)})
    return out


def versions() -> dict[str, str]:
    """Versions of the packages a checkpoint depends on (torch only if imported)."""
    import sys

    import numba
    out = {"python": sys.version.split()[0], "numpy": np.__version__,
           "numba": numba.__version__}
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch"] = torch.__version__
    return out


def write_checkpoint(path, params: dict[str, np.ndarray], config: dict) -> Path:
    """Write ``params`` (name -> array) and ``config`` to ``path`` atomically
    (a temporary file renamed into place). ``config`` gets ``format``."""
    path = Path(path)
    config = {**config, "format": FORMAT}
    expected = param_shapes(config)
    if set(params) != set(expected):
        raise CheckpointError(f"{path}: parameters {sorted(set(params) ^ set(expected))} do "
                              f"not match the sizes in the config")
    return write_npz(path, params, config)


def write_npz(path, params: dict[str, np.ndarray], config: dict) -> Path:
    """``params`` (as arrays ``param/<name>`` of the config's ``weights_dtype``,
    float32 unless it says float16) and ``config`` (JSON) written to ``path``
    atomically (a temporary file renamed into place); the file format of every
    network checkpoint (this module's and :mod:`solvers.beliefs._location`'s)."""
    path = Path(path)
    dtype = WEIGHT_DTYPES[config.get("weights_dtype", "float32")]
    arrays = {f"param/{k}": np.ascontiguousarray(v, dtype) for k, v in params.items()}
    arrays["config"] = np.array(json.dumps(config, sort_keys=True, default=str))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_sizes(config, where: str = "checkpoint") -> dict[str, int]:
    """The network sizes of a policy-value checkpoint's ``config``, each checked
    against :data:`LIMITS` and their parameter count against
    :data:`MAX_PARAMETERS` before anything is allocated; a missing, mistyped or
    too large field raises :class:`CheckpointError` naming it."""
    if not isinstance(config, dict):
        raise CheckpointError(f"{where}: its config is a {type(config).__name__}, not a JSON "
                              f"object")
    sizes = {}
    for key in _SIZE_KEYS:
        if key not in config:
            raise CheckpointError(f"{where}: config lacks the field {key!r}")
        lo, hi = LIMITS[key]
        v = config[key]
        if not _is_int(v) or not lo <= v <= hi:
            raise CheckpointError(f"{where}: config field {key!r} is {shorten(v)}; allowed: an "
                                  f"integer {lo}..{hi}")
        sizes[key] = int(v)
    D, A, V = sizes["input_size"], sizes["num_actions"], sizes["max_players"]
    H, nb = sizes["hidden"], sizes["blocks"]
    count = D * H + H + nb * 2 * (H * H + H) + (A + V) * (H + 1)
    if count > MAX_PARAMETERS:
        given = ", ".join(f"{k}={sizes[k]}" for k in _SIZE_KEYS)
        raise CheckpointError(f"{where}: its config ({given}) asks for {count:,} parameters; "
                              f"the limit is {MAX_PARAMETERS:,}")
    return sizes


def open_regular_file(path, what: str, writer: str, max_bytes: int = MAX_FILE_BYTES):
    """``path`` opened for binary reading if it is a regular file of at most
    ``max_bytes``; a missing file, a folder, a FIFO, a device or a socket, or a
    longer file raises :class:`CheckpointError` naming ``what`` and the file
    (nothing blocks: a FIFO is refused before it is opened, and the file is
    opened non-blocking and checked again)."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CheckpointError(f"{what} {path} does not exist (a file written by "
                              f"{writer})") from None
    except OSError as err:
        raise CheckpointError(f"{what} {path} cannot be read ({err.strerror or err})") from None

    def check(mode: int, size: int) -> None:
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                    else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "not a plain file")
            raise CheckpointError(f"{what} {path} is {kind}; allowed: a regular file written "
                                  f"by {writer}")
        if size > max_bytes:
            raise CheckpointError(f"{what} {path} is {size:,} bytes long; the limit is "
                                  f"{max_bytes:,}")

    check(st.st_mode, st.st_size)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise CheckpointError(f"{what} {path} cannot be read ({err.strerror or err})") from None
    f = os.fdopen(fd, "rb")
    try:
        st = os.fstat(fd)
        check(st.st_mode, st.st_size)        # replaced between stat and open
    except BaseException:
        f.close()
        raise
    return f


def _directory_entries(f, size: int) -> int | None:
    """The member count in the zip end-of-directory record at the end of ``f``
    (None if there is none: zipfile then reports the damage)."""
    tail = min(size, 65536 + 22)
    f.seek(size - tail)
    data = f.read(tail)
    at = data.rfind(b"PK\x05\x06")
    if at < 0 or at + 22 > len(data):
        return None
    _, _, _, _, total, _, _, _ = struct.unpack("<4s4H2LH", data[at:at + 22])
    f.seek(0)
    return total


def zip_members(f, size: int, where: str, *, max_members: int = MAX_MEMBERS,
                max_total: int = MAX_FILE_BYTES, names=None, allowed: str = "",
                label: str = "zip file",
                methods=(zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)) -> zipfile.ZipFile:
    """The :class:`zipfile.ZipFile` of the open file ``f`` after its directory is
    checked without decompressing anything: at most ``max_members`` members, no
    name twice, no encryption, compression among ``methods``, every name matching
    ``names`` (a compiled pattern, if given; ``allowed`` says in words which),
    declared sizes summing to at most ``max_total``. A problem raises
    :class:`CheckpointError` starting with ``where`` (``label``: what the file
    should be, for the message)."""
    count = _directory_entries(f, size)
    if count is not None and count > max_members:
        raise CheckpointError(f"{where}: its zip directory lists {count:,} members; the limit "
                              f"is {max_members:,}")
    try:
        z = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            struct.error) as err:
        raise CheckpointError(f"{where} is not a readable {label}: {shorten(str(err))}") from None
    infos = z.infolist()
    problem = None
    if len(infos) > max_members:
        problem = f"it has {len(infos):,} members; the limit is {max_members:,}"
    seen, total = set(), 0
    for info in infos if problem is None else ():
        name = info.filename
        if name in seen:
            problem = f"member {shorten(name)} appears twice"
        elif names is not None and not names.fullmatch(name):
            problem = f"member {shorten(name)} is not allowed here; allowed: {allowed}"
        elif info.flag_bits & 0x1:
            problem = f"member {shorten(name)} is encrypted"
        elif info.compress_type not in methods:
            problem = (f"member {shorten(name)} uses compression method {info.compress_type}; "
                       f"allowed: {list(methods)}")
        total += info.file_size
        seen.add(name)
        if problem is None and total > max_total:
            problem = (f"its members declare {total:,}+ bytes unpacked; the limit is "
                       f"{max_total:,}")
        if problem:
            break
    if problem:
        z.close()
        raise CheckpointError(f"{where}: {problem}")
    return z


def _read_member(z: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, *, kind: str,
                 shape=None, dtype_name: str = "float32") -> np.ndarray:
    """One ``.npy`` member of ``z``: its header read and checked (``kind``
    ``"config"``: a 0-d unicode string of at most :data:`MAX_CONFIG_BYTES`;
    ``"param"``: float32 of ``shape`` if given) and its size against the declared
    one, then exactly the data it declares read (never more)."""
    name = info.filename
    label = name[:-4]
    try:
        with z.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            if version == (1, 0):
                shp, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
            elif version == (2, 0):
                shp, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
            else:
                raise CheckpointError(f"{where}: member {label!r} has .npy version {version}; "
                                      f"allowed: (1, 0), (2, 0)")
            if kind == "config":
                if dtype.kind != "U" or shp != () or dtype.itemsize > MAX_CONFIG_BYTES:
                    raise CheckpointError(f"{where}: its config is a {dtype} array of shape "
                                          f"{shp}; allowed: one JSON string of at most "
                                          f"{MAX_CONFIG_BYTES:,} bytes")
            else:
                if dtype != WEIGHT_DTYPES[dtype_name]:
                    raise CheckpointError(f"{where}: parameter {label[6:]!r} has dtype {dtype}"
                                          f"; allowed: {dtype_name}, as its config declares "
                                          f"(weights_dtype; nothing is cast)")
                if shape is not None and tuple(shp) != tuple(shape):
                    raise CheckpointError(f"{where}: parameter {label[6:]!r} has shape "
                                          f"{tuple(shp)}; its config says {tuple(shape)}")
            count = 1
            for d in shp:
                count *= int(d)
            nbytes = count * dtype.itemsize
            if fp.tell() + nbytes != info.file_size:
                raise CheckpointError(f"{where}: member {label!r} declares {info.file_size:,} "
                                      f"bytes but its header says {fp.tell() + nbytes:,}")
            data = fp.read(nbytes)
            if len(data) != nbytes or fp.read(1):
                raise CheckpointError(f"{where}: member {label!r} is truncated")
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError, struct.error,
            SyntaxError, TypeError, NotImplementedError) as err:
        raise CheckpointError(f"{where}: member {label!r} is damaged: "
                              f"{shorten(str(err))}") from None
    order = "F" if fortran else "C"
    return np.frombuffer(data, dtype).reshape(shp, order=order).copy(order="C")


def read_npz(path, what: str = "checkpoint",
             writer: str = "solvers.net._model.save_checkpoint",
             shapes: Callable[[dict], dict] | None = None) -> tuple[dict, dict]:
    """``(config, params)`` of a file written by :func:`write_npz`, read within
    the bounds of the module docstring. The config is read first; ``shapes``
    (``config -> {name: shape}``, raising :class:`CheckpointError` for a bad
    config) then names every parameter the file must hold, and each is checked
    before its data are read. A missing, irregular, damaged or oversized file,
    no config, a config that is not JSON, a parameter that is not float32 raise
    :class:`CheckpointError` naming ``what`` and the file."""
    path = Path(path)
    where = f"{what} {path}"
    with open_regular_file(path, what, writer) as f:
        size = os.fstat(f.fileno()).st_size
        with zip_members(f, size, where, names=_MEMBER, label=".npz file",
                         allowed="config.npy and param/<name>.npy") as z:
            infos = {i.filename: i for i in z.infolist()}
            if "config.npy" not in infos:
                raise CheckpointError(f"{where} has no config entry (not a {what})")
            text = str(_read_member(z, infos.pop("config.npy"), where, kind="config"))
            try:
                config = json.loads(text)
            except (ValueError, RecursionError) as err:
                raise CheckpointError(f"{where}: its config is not JSON: "
                                      f"{shorten(str(err))}") from None
            if not isinstance(config, dict):
                raise CheckpointError(f"{where}: its config is a {type(config).__name__}, "
                                      f"not a JSON object")
            dtype_name = config.get("weights_dtype", "float32")
            if not isinstance(dtype_name, str) or dtype_name not in WEIGHT_DTYPES:
                raise CheckpointError(f"{where}: config field 'weights_dtype' is "
                                      f"{shorten(dtype_name)}; allowed: "
                                      f"{', '.join(WEIGHT_DTYPES)}")
            want = shapes(config) if shapes is not None else None
            if want is not None:
                have = {n[6:-4] for n in infos}
                problems = [f"{k}: missing" for k in want if k not in have]
                problems += [f"{k}: unexpected" for k in sorted(have - set(want))]
                if problems:
                    raise CheckpointError(f"{where}: parameters do not match its config: "
                                          + "; ".join(problems[:20]))
            params = {}
            for name, info in infos.items():
                key = name[6:-4]
                params[key] = _read_member(z, info, where, kind="param",
                                           shape=None if want is None else want[key],
                                           dtype_name=dtype_name).astype(np.float32, copy=False)
    return config, params


def read_checkpoint(path) -> tuple[dict, dict[str, np.ndarray]]:
    """``(config, params)`` of a checkpoint, checked (module docstring)."""
    path = Path(path)
    where = f"checkpoint {path}"

    def shapes(config: dict) -> dict:
        if config.get("format") != FORMAT:
            raise CheckpointError(f"{where} has format {shorten(config.get('format'))}; this "
                                  f"code reads {FORMAT!r}")
        missing = [k for k in (*_SIZE_KEYS, "layout", "layout_fingerprint") if k not in config]
        if missing:
            raise CheckpointError(f"{where}: config lacks {missing}")
        if not isinstance(config["layout"], dict):
            raise CheckpointError(f"{where}: config field 'layout' is "
                                  f"{shorten(config['layout'])}; allowed: a JSON object")
        if not isinstance(config["layout_fingerprint"], str):
            raise CheckpointError(f"{where}: config field 'layout_fingerprint' is "
                                  f"{shorten(config['layout_fingerprint'])}; allowed: a string")
        return param_shapes(check_sizes(config, where))

    config, params = read_npz(path, "checkpoint", shapes=shapes)
    bad = [k for k, v in params.items() if not np.isfinite(v).all()]
    if bad:
        raise CheckpointError(f"{where}: parameters {bad[:10]} hold NaN or infinity")
    return config, params
