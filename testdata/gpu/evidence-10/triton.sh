#!/usr/bin/env bash
# H200: the triton 3.7.0 forced plan tried with this session's merged release build (must stay clean: 0 regressions,
# flex_attention and the Triton kernels compiled into private caches), the venv's tree hashed before and after. The
# 201 MB wheel arrives in five parts, one a call (`triton.sh p`: append the carried part to /tmp/tp), then `triton.sh t`.
set -u
G=/tmp/g; mkdir -p $G /tmp/tp /tmp/tpw
V=/opt/torch/.venv
W=triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
cp .gpu10/tp/tp.* /tmp/tp/ 2>/dev/null; ls -la /tmp/tp
[ "${1:-p}" = p ] && exit 0
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu10/planner-merge.xz $G/planner
chmod +x $G/planner; P=$G/planner
{ nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $P --version; } > $OUT/machine-triton.txt 2>&1
cat /tmp/tp/tp.* > /tmp/tpw/$W
echo "$(sha256sum /tmp/tpw/$W | cut -d' ' -f1) expected 8f111161d49bf903c0eaedde3962353a3d841c08a836839b7cc1025b8426efcf" > $OUT/wheel-sha.txt
python3 testdata/gpu/try-treehash.py $V > $G/treehash-before.txt 2>&1
s=$(date +%s%N)
PIP_NO_INDEX=1 PIP_FIND_LINKS=/tmp/tpw PATH=/usr/bin:/bin $P try .gpu10/plans-triton/plans/2-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $OUT/try-triton-3.7.0.json 2> $OUT/try-triton-3.7.0.err
echo "try triton-3.7.0 (merged build): exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $OUT/timings-triton.txt
python3 testdata/gpu/try-treehash.py $V > $G/treehash-after.txt 2>&1
cmp -s $G/treehash-before.txt $G/treehash-after.txt && echo "triton-3.7.0: venv unchanged (tree hash $(tail -1 $G/treehash-after.txt))" >> $OUT/timings-triton.txt
cat $OUT/timings-triton.txt $OUT/wheel-sha.txt
