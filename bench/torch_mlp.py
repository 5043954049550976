#!/usr/bin/env python3
"""bench/torch_mlp.py - the PyTorch peer of `streamlab train` (issue 19).

The same model (784-300-100-10 by default: Linear + ReLU, softmax +
cross-entropy, mean over the batch), the same initialisation scheme (He
normal, std sqrt(2 / fan_in), biases 0), plain SGD with the same learning
rate, batch size and epochs, the whole data set resident on the GPU (one
upload), a fresh permutation per epoch (torch.randperm on the device), the
last batch shorter. Timed per epoch (torch.cuda.synchronize at both ends).

  --mode eager   model(x), loss, backward, optimizer.step() per batch
  --mode graph   the whole step (gradient zeroing, gather of the batch by an
                 index tensor, forward, loss, backward, SGD update) captured
                 once in a torch.cuda.CUDAGraph (one for the full batch, one
                 for the shorter last one) and replayed; per step one copy of
                 the batch's indices into the graph's static index tensor and
                 the replay. The parameters are restored after the warm-up
                 steps the capture needs.

Prints one JSON object (also --json FILE): per-epoch seconds, loss, and the
final test accuracy.
"""
import gzip
import json
import struct
import sys
import time

import _cli


def parse_args():
    ap = _cli.parser(__doc__)
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist",
                    help="the folder of Fashion-MNIST's gzip IDX files (default: %(default)s)")
    ap.add_argument("--layers", default="784-300-100-10", help="layer widths, input to output (default: %(default)s)")
    ap.add_argument("--batch", type=int, default=64, help="examples a step (default: %(default)s)")
    ap.add_argument("--lr", type=float, default=0.1, help="SGD learning rate (default: %(default)s)")
    ap.add_argument("--epochs", type=int, default=3, help="(default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1,
                    help="torch's seed: the initialisation and the epochs' permutations (default: %(default)s)")
    ap.add_argument("--mode", choices=["eager", "graph"], default="eager", help="see above (default: %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="also write the JSON object to FILE")
    return ap.parse_args()


if __name__ == "__main__":
    ARGS = parse_args()
    _cli.need(("numpy", "torch"), "NumPy and torch with CUDA (the device image has both)")

import numpy as np
import torch


def read_idx(path, ndims):
    with gzip.open(path, "rb") as f:
        data = f.read()
    zero, typ, nd = struct.unpack(">HBB", data[:4])
    if zero != 0 or typ != 8 or nd != ndims:
        sys.exit(f"{path}: not an unsigned-byte IDX file with {ndims} dimensions")
    dims = struct.unpack(">" + "I" * nd, data[4:4 + 4 * nd])
    arr = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * nd)
    if arr.size != int(np.prod(dims)):
        sys.exit(f"{path}: {arr.size} data bytes, header says {int(np.prod(dims))}")
    return arr.reshape(dims)


def main():
    a = ARGS
    dev = torch.device("cuda")
    torch.manual_seed(a.seed)
    sizes = [int(s) for s in a.layers.replace(",", "-").split("-")]
    xi = read_idx(f"{a.data}/train-images-idx3-ubyte.gz", 3)
    yi = read_idx(f"{a.data}/train-labels-idx1-ubyte.gz", 1)
    xt = read_idx(f"{a.data}/t10k-images-idx3-ubyte.gz", 3)
    yt = read_idx(f"{a.data}/t10k-labels-idx1-ubyte.gz", 1)
    X = torch.from_numpy(xi.reshape(len(xi), -1).astype(np.float32) / 255.0).to(dev)
    Y = torch.from_numpy(yi.astype(np.int64)).to(dev)
    XT = torch.from_numpy(xt.reshape(len(xt), -1).astype(np.float32) / 255.0).to(dev)
    YT = torch.from_numpy(yt.astype(np.int64)).to(dev)
    n, B = X.shape[0], a.batch

    layers = []
    for i in range(1, len(sizes)):
        lin = torch.nn.Linear(sizes[i - 1], sizes[i])
        torch.nn.init.kaiming_normal_(lin.weight, mode="fan_in", nonlinearity="relu")
        torch.nn.init.zeros_(lin.bias)
        layers.append(lin)
        if i < len(sizes) - 1:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dev)
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    tail = n % B

    graphs = {}
    lsum = torch.zeros((), device=dev)  # the epoch's loss sum, accumulated inside the graph
    if a.mode == "graph":
        saved = [p.detach().clone() for p in model.parameters()]
        idx_full = torch.arange(B, device=dev)
        idx_tail = torch.arange(max(tail, 1), device=dev)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up: allocates .grad, selects kernels
            for idx in (idx_full, idx_tail):
                for _ in range(3):
                    opt.zero_grad(set_to_none=False)
                    loss_fn(model(X.index_select(0, idx)), Y.index_select(0, idx)).backward()
                    opt.step()
        torch.cuda.current_stream().wait_stream(side)
        pool = None
        for name, idx in (("full", idx_full), ("tail", idx_tail)):
            if name == "tail" and tail == 0:
                continue
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, pool=pool):
                opt.zero_grad(set_to_none=False)
                out = model(X.index_select(0, idx))
                sloss = loss_fn(out, Y.index_select(0, idx))
                sloss.backward()
                opt.step()
                lsum.add_(sloss.detach() * idx.numel())
            pool = g.pool()
            graphs[name] = (g, idx, sloss)
        with torch.no_grad():
            for p, s in zip(model.parameters(), saved):
                p.copy_(s)
        torch.cuda.synchronize()

    epochs = []
    for e in range(a.epochs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        perm = torch.randperm(n, device=dev)
        total = torch.zeros((), device=dev)
        lsum.zero_()
        for s in range(0, n, B):
            rows = min(B, n - s)
            idx = perm[s:s + rows]
            if a.mode == "graph":
                g, sidx, sloss = graphs["full" if rows == B else "tail"]
                sidx.copy_(idx)
                g.replay()
            else:
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(model(X[idx]), Y[idx])
                loss.backward()
                opt.step()
                total += loss.detach() * rows
        torch.cuda.synchronize()
        sec = time.perf_counter() - t0
        if a.mode == "graph":
            total = lsum
        epochs.append({"epoch": e + 1, "seconds": sec, "loss": float(total) / n,
                       "us_per_step": 1e6 * sec / ((n + B - 1) // B)})
        print(f"torch {a.mode} batch {B}: epoch {e + 1} loss {float(total) / n:.4f} {sec:.3f} s",
              file=sys.stderr)
    with torch.no_grad():
        acc = float((model(XT).argmax(1) == YT).float().mean())
    rec = {"peer": "torch", "mode": a.mode, "batch": B, "lr": a.lr, "layers": sizes,
           "torch": torch.__version__, "device": torch.cuda.get_device_name(0),
           "epochs": epochs, "test_acc": acc}
    print(json.dumps(rec))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rec, f, indent=1)


if __name__ == "__main__":
    main()
