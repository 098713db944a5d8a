// Reads a gzip-compressed pprof profile with the pprof-format package (an
// independent decoder of profile.proto) and prints, as JSON, what the
// export tests compare: the sample types, the total of the first value, and
// per function (the real function of each frame: inline lines folded into
// the function they were inlined into) its self and total counts, a
// function counted once per sample however often it recurs.
// Usage: node pprof_summary.mjs PROFILE.pb.gz
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';

const profile = Profile.decode(gunzipSync(readFileSync(process.argv[2])));
const str = (i) => profile.stringTable.strings[Number(i)];
const functions = new Map(profile.function.map((f) => [Number(f.id), f]));
const locations = new Map(profile.location.map((l) => [Number(l.id), l]));
const outerName = (loc) => {
  const lines = loc.line;
  return str(functions.get(Number(lines[lines.length - 1].functionId)).name);
};
const self = {};
const total = {};
let sum = 0;
for (const sample of profile.sample) {
  const value = Number(sample.value[0]);
  sum += value;
  const names = sample.locationId.map((id) => outerName(locations.get(Number(id))));
  self[names[0]] = (self[names[0]] ?? 0) + value;
  for (const name of new Set(names)) total[name] = (total[name] ?? 0) + value;
}
const sampleTypes = profile.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`);
const mappings = profile.mapping.map((m) => ({
  file: str(m.filename), buildId: str(m.buildId),
  start: Number(m.memoryStart), limit: Number(m.memoryLimit),
}));
console.log(JSON.stringify({ sampleTypes, total: sum, self, totalByFunction: total, mappings }));
