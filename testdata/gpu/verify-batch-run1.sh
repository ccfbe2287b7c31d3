# etils and the transformers plan on 2 cores of the H200 machine, old and new template.
cd "$(dirname "$0")"
P=$(command -v python3); echo "python $P"; nproc; uptime; $P -c 'import os; print(os.sched_getaffinity(0))'
taskset -c 0,1 $P -c 'import os; print("taskset", os.sched_getaffinity(0))'
$P -m pip list 2>/dev/null | grep -i -E "^(etils|ipython|pillow|transformers|torchvision|jupyter) " 
echo '{"schema":"x","plan":null,"all":false,"expect":[],"overrides":[],"dists":[],"pip_check":false,"import_timeout":120,"budget":null,"smoke":[]}' > empty.json
for v in old new; do
  $P mk.py $v empty.json vmod_$v.py 2>/dev/null
  $P -c "
import vmod_$v as v, json
r = v.probe_import('etils.ecolab.lazy_imports', 120)
print('etils $v', r.get('ok'), repr(r.get('missing')), r.get('absent'), (r.get('error') or '')[:160])
job = {'module': 'etils.ecolab.lazy_imports', 'dist': 'etils', 'why': 'installed', 'via': None, 'uses': None, 'cited': None}
e = v.judge_import(v.Installed(), job, r)
print('verdict $v', e['status'], e.get('error') or e.get('detail'))
"
done
for v in old new; do $P mk.py $v tf-spec.json tf-$v.py; done
for v in new old new old; do
  /usr/bin/time -f "$v: %e s wall, %U user, %S sys" taskset -c 0,1 $P tf-$v.py --plain --no-smoke --quiet --report $OUT/tf-2cores-$v.json > /dev/null
  $P -c "import json; r=json.load(open('$OUT/tf-2cores-$v.json')); print('$v', r['summary'], r['fork'], r['seconds'])"
done
uptime
