"""onnx_newer: the operator versions of opsets 18 to 25, which came
after the ONNX release Debian ships (1.12, opsets to 17).

Written by hand from the ONNX operator changelog (docs/Changelog.md of
ONNX 1.13 to 1.20) for the operators nnl-onnx-import converts and the
new ones it implements; scripts/gen-onnx-arity.py and
scripts/gen-onnx-attrs.py read it.  OPSET is the newest opset these
rows describe: a model importing a newer one is refused, since an
operator may have changed there.
"""

OPSET = 25

# the opsets that only widened the operators' types (int4, bfloat16,
# float8, float4, ...): each op is a new version, same operands and
# attributes as its previous one
_TYPES21 = ("Cast", "CastLike", "Constant", "ConstantOfShape",
            "DequantizeLinear", "Flatten", "Identity", "Pad",
            "QuantizeLinear", "Reshape", "Shape", "Size", "Squeeze",
            "Transpose", "Unsqueeze")
_REDUCE = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
           "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
           "ReduceSumSquare")

# (op, since_version, arity or None for the previous version's,
#  attributes added, attributes dropped)
VERSIONS = [
    ("Pad", 18, (2, 4, 1, 1), (), ()),
    ("Resize", 18, (1, 4, 1, 1),
     ("antialias", "axes", "keep_aspect_ratio_policy"), ()),
    ("ScatterElements", 18, (3, 3, 1, 1), (), ()),
    ("ScatterND", 18, (3, 3, 1, 1), (), ()),
    ("Split", 18, (1, 2, 1, 65535), ("num_outputs",), ()),
    ("LpPool", 18, (1, 1, 1, 1), ("ceil_mode",), ()),
] + [(r, 18, (1, 2, 1, 1), ("noop_with_empty_axes",), ("axes",))
     for r in _REDUCE] + [
    ("AveragePool", 19, None, ("dilations",), ()),
    ("Cast", 19, None, ("saturate",), ()),
    ("CastLike", 19, None, ("saturate",), ()),
    ("QuantizeLinear", 19, None, ("saturate",), ()),
] + [(o, 19, None, (), ()) for o in (
    "Constant", "DequantizeLinear", "Equal", "Identity", "Pad", "Reshape",
    "Resize", "Shape", "Size")] + [
    ("Gelu", 20, (1, 1, 1, 1), ("approximate",), ()),
    ("DFT", 20, (1, 3, 1, 1), (), ("axis",)),
] + [(o, 20, None, (), ()) for o in (
    "ConstantOfShape", "IsInf", "IsNaN", "ReduceMax", "ReduceMin")] + [
    ("QuantizeLinear", 21, None, ("block_size", "output_dtype"), ()),
    ("DequantizeLinear", 21, None, ("block_size",), ()),
] + [(o, 21, None, (), ()) for o in _TYPES21
     if o not in ("QuantizeLinear", "DequantizeLinear")] + [
    (o, 22, None, (), ()) for o in (
        "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "AveragePool",
        "Conv", "ConvTranspose", "Cos", "Cosh", "Det", "Dropout", "Elu",
        "EyeLike",
        "GRU",
        "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "HardSigmoid",
        "HardSwish", "InstanceNormalization", "LSTM", "LpPool", "MaxPool",
        "NegativeLogLikelihoodLoss", "RNN", "Round", "Selu", "Sin", "Sinh",
        "Softplus", "Softsign", "Tan", "ThresholdedRelu")] + [
    ("RMSNormalization", 23, (2, 2, 1, 1),
     ("axis", "epsilon", "stash_type"), ()),
    ("RotaryEmbedding", 23, (3, 4, 1, 1),
     ("interleaved", "num_heads", "rotary_embedding_dim"), ()),
    ("Attention", 23, (3, 6, 1, 4),
     ("is_causal", "kv_num_heads", "q_num_heads", "qk_matmul_output_mode",
      "scale", "softcap", "softmax_precision"), ()),
    ("QuantizeLinear", 23, None, ("precision",), ()),
    ("DequantizeLinear", 23, None, ("output_dtype",), ()),
] + [(o, 23, None, (), ()) for o in _TYPES21
     if o not in ("QuantizeLinear", "DequantizeLinear")] + [
    ("Attention", 24, (3, 7, 1, 4), (), ()),
    ("Cast", 24, None, ("round_mode",), ()),
] + [(o, 24, None, (), ()) for o in _TYPES21 if o != "Cast"] + [
    (o, 25, None, (), ()) for o in _TYPES21]
