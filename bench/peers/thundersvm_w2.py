#!/usr/bin/env python3
"""W2 with ThunderSVM as the GPU peer: RBF C-SVC (C = 1, gamma = 1/d, epsilon = 1e-3, the
settings of compare_peers' W2 rows) on the full ijcnn1 and a9a training sets, timed around
thundersvm-train (wall clock, file reading and CUDA start-up included, as it is used), then test
accuracy from thundersvm-predict. ThunderSVM is not part of this project: pass the folder of a
build of it (bin/thundersvm-train, bin/thundersvm-predict, lib/).

  python3 bench/peers/thundersvm_w2.py --thundersvm DIR --data DATA_DIR [--sets ijcnn1,a9a]
      [--json OUT.json]

DATA_DIR holds SET/SET_train.csv and SET/SET_test.csv (label last, as in data/)."""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def to_libsvm(csv_path, out_path):
    """Writes the CSV (header, label last) in LIBSVM's sparse format; returns (rows, features)."""
    rows = 0
    with open(csv_path, newline="") as f, open(out_path, "w") as out:
        reader = csv.reader(f)
        header = next(reader)
        d = len(header) - 1
        for line, record in enumerate(reader, start=2):
            if len(record) != d + 1:
                raise SystemExit(f"{csv_path}:{line}: {len(record)} fields, expected {d + 1}")
            label = int(float(record[-1]))
            terms = [f"{j + 1}:{v}" for j, v in enumerate(record[:-1]) if float(v) != 0.0]
            out.write(f"{label:+d} {' '.join(terms)}\n")
            rows += 1
    return rows, d


def read_labels(libsvm_path):
    with open(libsvm_path) as f:
        return [int(line.split(None, 1)[0]) for line in f if line.strip()]


def support_vectors(model_path):
    with open(model_path) as f:
        for line in f:
            if line.startswith("total_sv"):
                return int(line.split()[1])
    return -1


def run_set(thundersvm, data, name, work):
    train_csv = os.path.join(data, name, f"{name}_train.csv")
    test_csv = os.path.join(data, name, f"{name}_test.csv")
    train = os.path.join(work, f"{name}.train")
    test = os.path.join(work, f"{name}.test")
    n, d = to_libsvm(train_csv, train)
    to_libsvm(test_csv, test)
    model = os.path.join(work, f"{name}.model")
    predictions = os.path.join(work, f"{name}.predict")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(thundersvm, "lib") + ":" + env.get("LD_LIBRARY_PATH", "")
    train_cmd = [os.path.join(thundersvm, "bin", "thundersvm-train"), "-s", "0", "-t", "2",
                 "-c", "1", "-g", repr(1.0 / d), "-e", "0.001", train, model]
    start = time.perf_counter()
    trained = subprocess.run(train_cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if trained.returncode != 0:
        raise SystemExit(f"thundersvm-train on {name} failed ({trained.returncode}): "
                         f"{trained.stderr[-600:]}{trained.stdout[-600:]}")
    predict_cmd = [os.path.join(thundersvm, "bin", "thundersvm-predict"), test, model, predictions]
    predicted = subprocess.run(predict_cmd, env=env, capture_output=True, text=True)
    if predicted.returncode != 0:
        raise SystemExit(f"thundersvm-predict on {name} failed ({predicted.returncode}): "
                         f"{predicted.stderr[-600:]}")
    truth = read_labels(test)
    with open(predictions) as f:
        guesses = [int(float(line)) for line in f if line.strip()]
    if len(guesses) != len(truth):
        raise SystemExit(f"{name}: {len(guesses)} predictions for {len(truth)} test points")
    accuracy = sum(int(a == b) for a, b in zip(truth, guesses)) / len(truth)
    # The dual objective it logs ("obj = ...", 1/2 a'Qa - 1'a as LIBSVM prints it).
    found = re.findall(r"obj = ([-+0-9.eE]+)", trained.stdout + trained.stderr)
    return {"set": name, "n": n, "d": d, "peer": "ThunderSVM", "peer_seconds": seconds,
            "peer_accuracy": accuracy, "peer_objective": float(found[-1]) if found else None,
            "support_vectors": support_vectors(model),
            "log_tail": (trained.stdout + trained.stderr)[-400:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thundersvm", required=True, help="folder with bin/ and lib/")
    parser.add_argument("--data", required=True, help="folder with SET/SET_train.csv")
    parser.add_argument("--sets", default="ijcnn1,a9a")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.sets.split(","):
            row = run_set(args.thundersvm, args.data, name, work)
            rows.append(row)
            print(f"{name} {row['n']}x{row['d']}: ThunderSVM {row['peer_seconds']:.3f} s, "
                  f"accuracy {row['peer_accuracy']:.4f}, objective {row['peer_objective']}, "
                  f"{row['support_vectors']} SVs")
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
