#!/usr/bin/env bash
# The CUDA backend is a module loaded on first use: the tool must not link or load the CUDA
# libraries for a CPU run, and reports a missing module or device with exit code 4.
# Usage: cuda_module_test.sh ZERONORM_BINARY DATA_DIR HAS_CUDA_MODULE(0|1)
set -u
ZN=$1
DATA=$2
HAS_MODULE=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
train=(train "$DATA/ripley/ripley_train.csv" --kernel linear -C 1 --model "$tmp/model" --quiet)

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
cuda_libs='libzeronorm_cuda|libcublas|libcusolver|libcudart'

if ldd "$ZN" | grep -E "$cuda_libs"; then
    fail "the tool links CUDA libraries"
else
    pass "links no CUDA library"
fi

# LD_DEBUG=files names every object the dynamic loader opens, dlopen included.
for args in "--version" "${train[*]} --backend cpu"; do
    # shellcheck disable=SC2086
    opened=$(LD_DEBUG=files "$ZN" $args 2>&1 >/dev/null | grep -oE "file=[^ ]+" | sort -u)
    if grep -E "$cuda_libs" <<< "$opened"; then
        fail "'zeronorm $args' loads CUDA"
    else
        pass "'zeronorm $args' loads no CUDA"
    fi
done

if [ "$HAS_MODULE" = 1 ]; then
    version=$("$ZN" --version)
    [[ $version == *"cuda: yes"* ]] && pass "--version finds the module" || fail "--version: $version"
    missing=/nonexistent/libzeronorm_cuda.so
    version=$(ZERONORM_CUDA_MODULE=$missing "$ZN" --version)
    [[ $version == *"cuda: no"* ]] && pass "--version without the module" || fail "--version: $version"
    err=$(ZERONORM_CUDA_MODULE=$missing "$ZN" "${train[@]}" --backend cuda 2>&1 >/dev/null)
    rc=$?
    [[ $rc == 4 && $err == *"$missing: not found"* ]] && pass "missing module: exit 4, path named" ||
        fail "missing module: exit $rc, $err"
    if [ -z "$(command -v nvidia-smi)" ]; then
        # The module's CudaError reaches the tool by type: exit 4, the runtime's reason.
        err=$("$ZN" "${train[@]}" --backend cuda 2>&1 >/dev/null)
        rc=$?
        [[ $rc == 4 && $err == *"no usable CUDA device"* ]] && pass "no device: exit 4" ||
            fail "no device: exit $rc, $err"
    fi
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
