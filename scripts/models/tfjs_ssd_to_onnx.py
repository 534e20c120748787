"""SSDLite-MobileNetV2's TensorFlow.js graph model to ONNX, with numpy and onnx only (no TensorFlow).

The exported graph (TensorFlow object detection API, coco-ssd lite_mobilenet_v2) starts with a
resize loop (dynamic control flow) and ends with non-maximum suppression; the service uses neither:
it feeds the image after the loop, at 'Preprocessor/sub' (NHWC float 1 x 300 x 300 x 3, scaled to
-1..1), and reads the raw outputs 'Postprocessor/Slice' (sigmoid scores, 1 x 1917 x 90) and
'Postprocessor/ExpandDims_1' (decoded boxes, 1 x 1917 x 1 x 4). This translates exactly that
sub-graph, node by node, into an ONNX graph with the same input and the two outputs
('scores', 'boxes'):

* convolutions run in NCHW (ONNX's layout); a tensor leaves NCHW (a Transpose) only where a node
  other than an element-wise one reads it (the box predictors' reshapes);
* everything that does not depend on the image (shapes, anchors, the arithmetic TensorFlow's
  grappler left on constants) is computed here with numpy and written as a constant;
* TensorFlow's SAME padding becomes explicit pads (the extra pixel at the end, as TensorFlow puts it).

Only the operations this graph uses are translated; any other one is an error, never a guess.
Deterministic: the same input files give the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT = "Preprocessor/sub"
OUTPUTS = {"Postprocessor/Slice": "scores", "Postprocessor/ExpandDims_1": "boxes"}
SIZE = 300
DTYPES = {"float32": np.float32, "int32": np.int32}


class Dyn:
    """A tensor computed from the image: its ONNX name, its TensorFlow (NHWC) shape, and whether the ONNX tensor is NCHW."""

    def __init__(self, name: str, shape: list[int], nchw: bool = False):
        self.name, self.shape, self.nchw = name, list(shape), nchw


def load(model_dir: Path) -> tuple[dict, dict[str, np.ndarray]]:
    spec = json.loads((model_dir / "model.json").read_text())
    consts: dict[str, np.ndarray] = {}
    for group in spec["weightsManifest"]:
        data = b"".join((model_dir / p).read_bytes() for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            if "quantization" in w:
                raise ValueError(f"quantised weight {w['name']} not supported")
            dtype = np.dtype(DTYPES[w["dtype"]])
            count = int(np.prod(w["shape"])) if w["shape"] else 1
            consts[w["name"]] = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(w["shape"]).copy()
            offset += count * dtype.itemsize
        if offset != len(data):
            raise ValueError("weight shards do not match their manifest")
    nodes = {n["name"]: n for n in spec["modelTopology"]["node"]}
    return nodes, consts


def ints(attr: dict, key: str) -> list[int]:
    return [int(i) for i in attr[key]["list"].get("i", [])]


def text(attr: dict, key: str) -> str:
    return bytes(attr[key]["s"]).decode() if isinstance(attr[key]["s"], list) else attr[key]["s"]


def convert(model_dir: Path) -> onnx.ModelProto:
    nodes, consts = load(model_dir)
    out_nodes: list[onnx.NodeProto] = []
    initializers: list[onnx.TensorProto] = []
    values: dict[str, object] = {}
    counter = [0]

    def fresh(base: str) -> str:
        counter[0] += 1
        return f"{base}__{counter[0]}"

    def const_name(array: np.ndarray, base: str) -> str:
        name = fresh(base)
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def emit(op: str, inputs: list[str], base: str, **attrs) -> str:
        name = fresh(base)
        out_nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def to_nhwc(d: Dyn) -> Dyn:
        if not d.nchw:
            return d
        return Dyn(emit("Transpose", [d.name], "to_nhwc", perm=[0, 2, 3, 1]), d.shape, False)

    def nchw_const(array: np.ndarray) -> np.ndarray:
        """A constant broadcast against an NHWC tensor, rearranged for the same tensor in NCHW."""
        a = np.asarray(array)
        if a.ndim == 0:
            return a
        if a.ndim == 1:
            return a.reshape(-1, 1, 1)
        if a.ndim == 4:
            return a.transpose(0, 3, 1, 2)
        raise ValueError(f"cannot broadcast a constant of shape {a.shape} in NCHW")

    def broadcast_shape(a: list[int], b: list[int]) -> list[int]:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))

    def value(ref: str):
        name, _, index = ref.partition(":")
        v = get(name)
        if isinstance(v, tuple):  # several outputs (Unpack)
            return v[int(index or 0)]
        return v

    def get(name: str):
        if name in values:
            return values[name]
        node = nodes[name]
        values[name] = translate(node)
        return values[name]

    def translate(node: dict):
        op, name, attr = node["op"], node["name"], node.get("attr", {})
        if name == INPUT:
            return Dyn(emit("Transpose", ["input"], "to_nchw", perm=[0, 3, 1, 2]), [1, SIZE, SIZE, 3], True)
        if op == "Const":
            return consts[name]
        args = [value(i) for i in node.get("input", []) if not i.startswith("^")]
        dynamic = any(isinstance(a, Dyn) for a in args)

        if op == "Identity":
            return args[0]
        if op in ("Conv2D", "DepthwiseConv2dNative"):
            x, w = args
            if text(attr, "data_format") != "NHWC" or not isinstance(x, Dyn) or isinstance(w, Dyn):
                raise ValueError(f"{name}: unexpected Conv2D form")
            x = x if x.nchw else Dyn(emit("Transpose", [x.name], "to_nchw", perm=[0, 3, 1, 2]), x.shape, True)
            strides = ints(attr, "strides")[1:3]
            dil = ints(attr, "dilations")[1:3] if "dilations" in attr else [1, 1]
            kh, kw = w.shape[0], w.shape[1]
            _, ih, iw, ic = x.shape
            padding = text(attr, "padding")
            pads, out_hw = [], []
            for size, k, s, d in ((ih, kh, strides[0], dil[0]), (iw, kw, strides[1], dil[1])):
                ek = (k - 1) * d + 1
                if padding == "SAME":
                    out = -(-size // s)
                    total = max((out - 1) * s + ek - size, 0)
                    pads.append((total // 2, total - total // 2))
                elif padding == "VALID":
                    out = (size - ek) // s + 1
                    pads.append((0, 0))
                else:
                    raise ValueError(f"{name}: padding {padding}")
                out_hw.append(out)
            if op == "Conv2D":
                weight, group, oc = w.transpose(3, 2, 0, 1), 1, w.shape[3]
            else:
                c, m = w.shape[2], w.shape[3]
                weight, group, oc = w.transpose(2, 3, 0, 1).reshape(c * m, 1, kh, kw), c, c * m
                if c != ic:
                    raise ValueError(f"{name}: depthwise channels")
            out = emit("Conv", [x.name, const_name(weight.astype(np.float32), name + "/W")], name, strides=strides, dilations=dil,
                       pads=[pads[0][0], pads[1][0], pads[0][1], pads[1][1]], group=group, kernel_shape=[kh, kw])
            return Dyn(out, [1, out_hw[0], out_hw[1], oc], True)
        if op == "FusedBatchNorm":
            x, gamma, beta, mean, var = args
            eps = float(attr["epsilon"]["f"])
            scale = (gamma / np.sqrt(var + np.float32(eps))).astype(np.float32)
            shift = (beta - mean * scale).astype(np.float32)
            if not x.nchw:
                raise ValueError(f"{name}: batch norm outside a convolution")
            out = emit("BatchNormalization", [x.name, const_name(scale, name + "/scale"), const_name(shift, name + "/shift"),
                                              const_name(np.zeros_like(scale), name + "/mean"), const_name(np.ones_like(scale), name + "/var")],
                       name, epsilon=0.0)
            return Dyn(out, x.shape, True)
        if op == "Relu6":
            (x,) = args
            out = emit("Clip", [x.name, const_name(np.array(0, np.float32), "zero"), const_name(np.array(6, np.float32), "six")], name)
            return Dyn(out, x.shape, x.nchw)
        if op in ("Sigmoid", "Exp"):
            (x,) = args
            if not dynamic:
                return (1 / (1 + np.exp(-x)) if op == "Sigmoid" else np.exp(x)).astype(x.dtype)
            return Dyn(emit(op, [x.name], name), x.shape, x.nchw)
        if op in ("Add", "AddV2", "BiasAdd", "Sub", "Mul", "RealDiv", "AddN"):
            if not dynamic:
                if op == "AddN":
                    return sum(args[1:], args[0])
                a, b = args
                return {"Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.divide}.get(op, np.add)(a, b).astype(np.result_type(a, b))
            onnx_op = {"Sub": "Sub", "Mul": "Mul", "RealDiv": "Div"}.get(op, "Add")
            acc = args[0]
            for b in args[1:]:
                a = acc
                if isinstance(a, Dyn) and isinstance(b, Dyn):
                    if a.nchw != b.nchw:
                        a, b = to_nhwc(a), to_nhwc(b)
                    out = emit(onnx_op, [a.name, b.name], name)
                    acc = Dyn(out, broadcast_shape(a.shape, b.shape), a.nchw)
                elif isinstance(a, Dyn):
                    c = nchw_const(b) if a.nchw else b
                    out = emit(onnx_op, [a.name, const_name(np.asarray(c, np.float32), name + "/c")], name)
                    acc = Dyn(out, broadcast_shape(a.shape, list(np.shape(b))), a.nchw)
                else:
                    c = nchw_const(a) if b.nchw else a
                    out = emit(onnx_op, [const_name(np.asarray(c, np.float32), name + "/c"), b.name], name)
                    acc = Dyn(out, broadcast_shape(list(np.shape(a)), b.shape), b.nchw)
            return acc
        if op == "Shape":
            (x,) = args
            return np.array(x.shape if isinstance(x, Dyn) else np.shape(x), np.int32)
        if op == "StridedSlice":
            x, begin, end, strides = args
            if dynamic:
                raise ValueError(f"{name}: StridedSlice on the image")
            for key in ("ellipsis_mask", "new_axis_mask"):
                if int(attr.get(key, {}).get("i", 0)):
                    raise ValueError(f"{name}: {key}")
            bmask, emask, smask = (int(attr.get(k, {}).get("i", 0)) for k in ("begin_mask", "end_mask", "shrink_axis_mask"))
            index = []
            for axis in range(len(begin)):
                if smask >> axis & 1:
                    index.append(int(begin[axis]))
                else:
                    index.append(slice(None if bmask >> axis & 1 else int(begin[axis]), None if emask >> axis & 1 else int(end[axis]), int(strides[axis])))
            return np.asarray(x[tuple(index)])
        if op == "Pack":
            axis = int(attr.get("axis", {}).get("i", 0))
            if not dynamic:
                return np.stack([np.asarray(a) for a in args], axis=axis)
            parts = []
            shape = None
            for a in args:
                a = to_nhwc(a)
                shape = a.shape
                parts.append(emit("Unsqueeze", [a.name, const_name(np.array([axis], np.int64), "axes")], name + "/unsq"))
            ax = axis if axis >= 0 else axis + len(shape) + 1
            out = emit("Concat", parts, name, axis=ax)
            return Dyn(out, shape[:ax] + [len(args)] + shape[ax:])
        if op == "Unpack":
            (x,) = args
            num, axis = int(attr["num"]["i"]), int(attr.get("axis", {}).get("i", 0))
            if not dynamic:
                return tuple(np.take(x, i, axis=axis) for i in range(num))
            x = to_nhwc(x)
            ax = axis if axis >= 0 else axis + len(x.shape)
            outs = [fresh(name + "/split") for _ in range(num)]
            out_nodes.append(helper.make_node("Split", [x.name, const_name(np.ones(num, np.int64), "split")], outs, name=fresh(name), axis=ax))
            shape = x.shape[:ax] + x.shape[ax + 1:]
            return tuple(Dyn(emit("Squeeze", [o, const_name(np.array([ax], np.int64), "axes")], name), shape) for o in outs)
        if op == "Reshape":
            x, shape = args
            if not dynamic:
                return np.reshape(x, shape)
            x = to_nhwc(x)
            target = list(np.empty(x.shape, np.int8).reshape([int(s) for s in shape]).shape)
            return Dyn(emit("Reshape", [x.name, const_name(np.array(target, np.int64), "shape")], name), target)
        if op == "ConcatV2":
            *parts, axis = args
            axis = int(axis)
            if not dynamic:
                return np.concatenate(parts, axis=axis)
            parts = [to_nhwc(p) if isinstance(p, Dyn) else p for p in parts]
            rank = len(parts[0].shape)
            ax = axis if axis >= 0 else axis + rank
            names = [p.name if isinstance(p, Dyn) else const_name(np.asarray(p, np.float32), name + "/c") for p in parts]
            shape = list(parts[0].shape)
            shape[ax] = sum((p.shape if isinstance(p, Dyn) else list(np.shape(p)))[ax] for p in parts)
            return Dyn(emit("Concat", names, name, axis=ax), shape)
        if op == "Squeeze":
            (x,) = args
            dims = ints(attr, "squeeze_dims")
            if not dynamic:
                return np.squeeze(x, axis=tuple(dims))
            x = to_nhwc(x)
            dims = [d if d >= 0 else d + len(x.shape) for d in dims]
            shape = [s for i, s in enumerate(x.shape) if i not in dims]
            return Dyn(emit("Squeeze", [x.name, const_name(np.array(dims, np.int64), "axes")], name), shape)
        if op == "ExpandDims":
            x, dim = args
            dim = int(dim)
            if not dynamic:
                return np.expand_dims(x, dim)
            x = to_nhwc(x)
            ax = dim if dim >= 0 else dim + len(x.shape) + 1
            return Dyn(emit("Unsqueeze", [x.name, const_name(np.array([ax], np.int64), "axes")], name), x.shape[:ax] + [1] + x.shape[ax:])
        if op == "Tile":
            x, reps = args
            if dynamic:
                raise ValueError(f"{name}: Tile on the image")
            return np.tile(x, reps)
        if op == "Transpose":
            x, perm = args
            if not dynamic:
                return np.transpose(x, perm)
            x = to_nhwc(x)
            perm = [int(p) for p in perm]
            return Dyn(emit("Transpose", [x.name], name, perm=perm), [x.shape[p] for p in perm])
        if op == "Slice":
            x, begin, size = args
            if not dynamic:
                return x[tuple(slice(int(b), None if int(s) == -1 else int(b) + int(s)) for b, s in zip(begin, size))]
            x = to_nhwc(x)
            ends = [np.iinfo(np.int64).max if int(s) == -1 else int(b) + int(s) for b, s in zip(begin, size)]
            shape = [(d - int(b)) if int(s) == -1 else int(s) for d, b, s in zip(x.shape, begin, size)]
            out = emit("Slice", [x.name, const_name(np.asarray(begin, np.int64), "starts"), const_name(np.array(ends, np.int64), "ends")], name)
            return Dyn(out, shape)
        raise ValueError(f"{name}: operation {op} is not translated")

    outputs = []
    for tf_name, onnx_name in OUTPUTS.items():
        v = to_nhwc(get(tf_name))
        out_nodes.append(helper.make_node("Identity", [v.name], [onnx_name], name=onnx_name))
        outputs.append(helper.make_tensor_value_info(onnx_name, TensorProto.FLOAT, v.shape))
    graph = helper.make_graph(out_nodes, "ssdlite_mobilenet_v2_coco",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, SIZE, SIZE, 3])], outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="scripts/models/tfjs_ssd_to_onnx.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    import sys

    m = convert(Path(sys.argv[1]))
    Path(sys.argv[2]).write_bytes(m.SerializeToString())
    print({o.name: [d.dim_value for d in o.type.tensor_type.shape.dim] for o in m.graph.output}, len(m.graph.node))
