#!/bin/bash
# s5-27 live: propose --try (flask.sansio rule) and review --try on a pip-built and a uv-built venv, public index.
set -u
P=/work/wt/s5-27/target/debug/planner
cd /tmp/s5-27-live
USE="python -c \"import flask, requests; app = flask.Flask('x'); app.route('/')(lambda: requests.Request('GET', 'http://ドメイン.テスト/').prepare().url); r = app.test_client().get('/'); assert r.status_code == 200, r.status_code; print(r.data)\""
rm -rf repo && mkdir repo && cd repo && git init -q -b main && printf 'flask==3.0.3\nwerkzeug==3.1.9\nidna==3.20\n' > requirements.txt && git add . && git -c user.name=t -c user.email=t@t commit -qm base && git checkout -q -b pr && printf 'flask==3.0.3\nwerkzeug==2.0.3\nidna==3.7\n' > requirements.txt && git -c user.name=t -c user.email=t@t commit -qam pr && cd ..
for v in pipv uvv; do
  if [ $v = pipv ]; then export PATH=/tmp/s5-27-uvbin:$ORIGPATH; else export PATH=$ORIGPATH; fi
  echo "=== $v (uv on PATH: $(command -v uv || echo no))"
  h0=$(/tmp/s4-27-treehash.sh $v)
  /usr/bin/time -f "wall %e s, cpu %U+%S s" $P propose werkzeug==2.0.3 --allow-override --venv $v --try --test "$USE" > $v-wz2.try.txt 2>$v-wz2.try.err; echo "propose --try rc=$?"; tail -1 $v-wz2.try.err
  sed -n '/^Measured in throw-away/,$p' $v-wz2.try.txt | head -20
  for f in text markdown json; do
    /usr/bin/time -f "wall %e s, cpu %U+%S s" $P review repo --base main --head pr --venv $v --try --test "$USE" --format $f > $v-review.$f 2>$v-review.$f.err; echo "review --try --format $f rc=$?"; tail -1 $v-review.$f.err
  done
  grep -E "^[A-Z]+ +[0-9]+/100|tried|FAIL|gone|installer" $v-review.text | head -30
  h1=$(/tmp/s4-27-treehash.sh $v)
  [ "$h0" = "$h1" ] && echo "$v tree hash unchanged: $h1" || echo "$v TREE CHANGED"
done
