"""Read a PyTorch legacy (pre-zip) checkpoint into numpy arrays, without PyTorch.

The file is a sequence of pickles (magic number, protocol version, system info, the object, the
list of storage keys) followed by the raw storages (each an int64 element count, then the bytes).
The object pickle is read with a restricted unpickler: it resolves only the handful of globals a
state dict needs (OrderedDict, the tensor rebuild function, storage types) and refuses everything
else, so a hostile file cannot run code.
"""

from __future__ import annotations

import collections
import pickle
import struct
from typing import Any, BinaryIO

import numpy as np

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C

_STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}


class _StorageType:
    def __init__(self, name: str) -> None:
        self.dtype = np.dtype(_STORAGE_DTYPES[name]).newbyteorder("<")


class _Storage:
    def __init__(self, dtype: np.dtype, numel: int) -> None:
        self.dtype = dtype
        self.numel = numel
        self.data: np.ndarray | None = None


class _LazyTensor:
    def __init__(self, storage: _Storage, offset: int, size: tuple, stride: tuple) -> None:
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

    def materialise(self) -> np.ndarray:
        data = self.storage.data
        assert data is not None, "storage not read"
        item = data.itemsize
        view = np.lib.stride_tricks.as_strided(
            data[self.offset:], shape=self.size, strides=tuple(s * item for s in self.stride)
        )
        return np.array(view, dtype=data.dtype.newbyteorder("="))


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, *rest):
    return _LazyTensor(storage, storage_offset, size, stride)


class _RestrictedUnpickler(pickle.Unpickler):
    def __init__(self, f: BinaryIO, storages: dict[str, _Storage]) -> None:
        super().__init__(f)
        self._storages = storages

    def find_class(self, module: str, name: str) -> Any:
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor_v2
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        _, storage_type, key, _location, numel, view_metadata = pid
        if view_metadata is not None:
            raise pickle.UnpicklingError("storage views are not supported")
        if key not in self._storages:
            self._storages[key] = _Storage(storage_type.dtype, numel)
        return self._storages[key]


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing global {module}.{name}")


def load_state_dict(path: str) -> "collections.OrderedDict[str, np.ndarray]":
    with open(path, "rb") as f:
        if _PlainUnpickler(f).load() != MAGIC_NUMBER:
            raise ValueError("not a PyTorch legacy checkpoint (magic number)")
        _PlainUnpickler(f).load()  # protocol version
        _PlainUnpickler(f).load()  # sys info (little_endian, type sizes)
        storages: dict[str, _Storage] = {}
        obj = _RestrictedUnpickler(f, storages).load()
        keys = _PlainUnpickler(f).load()
        for key in keys:
            storage = storages[key]
            (numel,) = struct.unpack("<q", f.read(8))
            if numel != storage.numel:
                raise ValueError(f"storage {key}: {numel} elements, expected {storage.numel}")
            raw = f.read(numel * storage.dtype.itemsize)
            storage.data = np.frombuffer(raw, dtype=storage.dtype)
    if not isinstance(obj, dict):
        raise ValueError("checkpoint is not a state dict")
    return collections.OrderedDict((k, v.materialise() if isinstance(v, _LazyTensor) else v) for k, v in obj.items())
