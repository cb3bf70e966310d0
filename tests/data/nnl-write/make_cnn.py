#!/usr/bin/python3
"""make_cnn: an NCHW webnn-graph (conv2d, relu, maxPool2d, reshape, gemm,
softmax) with packed weights, as nnl-onnx-import makes them, plus an HWC
input and PyTorch's output for it.  Usage: make_cnn.py DIR
"""
import json
import os
import subprocess
import sys

import numpy as np
import torch

BIN = os.environ.get("NNL_BIN") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bin")
os.chdir(sys.argv[1])
r=np.random.default_rng(0)
os.makedirs('w', exist_ok=True)
W={'cw': r.standard_normal((4,3,3,3)).astype(np.float32)*0.3, 'cb': r.standard_normal(4).astype(np.float32),
   'fw': r.standard_normal((5, 4*4*4)).astype(np.float32)*0.2, 'fb': r.standard_normal(5).astype(np.float32)}
for k,v in W.items(): np.save(f'w/{k}.npy', v)
subprocess.check_call(
    [os.path.join(BIN, 'nnl-pack-weights'),'pack','-o','cnn.weights','w'])
g={"format":"webnn-graph-json","version":1,"name":"cnn",
 "inputs":{"x":{"dataType":"float32","shape":[1,3,8,8]}},
 "consts":{k:{"dataType":"float32","shape":list(v.shape),"init":{"kind":"weights","ref":k}} for k,v in W.items()},
 "nodes":[
  {"id":"c","op":"conv2d","inputs":["x","cw"],"options":{"padding":[1,1,1,1],"bias":"cb"}},
  {"id":"r","op":"relu","inputs":["c"],"options":{}},
  {"id":"p","op":"maxPool2d","inputs":["r"],"options":{"windowDimensions":[2,2],"strides":[2,2]}},
  {"id":"f","op":"reshape","inputs":["p"],"options":{"newShape":[1,64]}},
  {"id":"d","op":"gemm","inputs":["f","fw"],"options":{"c":"fb","bTranspose":True}},
  {"id":"s","op":"softmax","inputs":["d"],"options":{"axis":1}}],
 "outputs":{"s":"s"}}
json.dump(g, open('cnn.json','w'))
x=r.standard_normal((1,3,8,8)).astype(np.float32)
t=torch.nn.functional
y=t.conv2d(torch.tensor(x),torch.tensor(W['cw']),torch.tensor(W['cb']),padding=1).relu()
y=t.max_pool2d(y,2).reshape(1,-1)
y=t.linear(y,torch.tensor(W['fw']),torch.tensor(W['fb'])).softmax(1)
np.save('in_hwc.npy', x[0].transpose(1,2,0).copy())
np.save('want.npy', y.numpy()[0])
