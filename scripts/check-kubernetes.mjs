#!/usr/bin/env node
// Renders the Kubernetes overlays with kubectl's built-in kustomize and checks every object, offline:
// against the Kubernetes API schemas (the kubernetes-models package ships them) and against this
// service's rules (every setting of libs/config in the ConfigMap or the Secret, images by digest,
// non-root and read-only pods, probes on the health endpoints, resources, a drain before SIGTERM).
//   node scripts/check-kubernetes.mjs [results.json]
// Prints one line per check; exits 1 when any fails. scripts/test.js runs it and counts the checks.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const k8s = join(root, 'deploy', 'kubernetes');
let passed = 0;
let failed = 0;

function check(title, problems) {
  if (problems.length) {
    failed++;
    process.stdout.write(`FAIL ${title}\n${problems.map((p) => `     ${p}\n`).join('')}`);
  } else {
    passed++;
    process.stdout.write(`ok   ${title}\n`);
  }
}

function render(dir) {
  const r = spawnSync('kubectl', ['kustomize', '--load-restrictor=LoadRestrictionsNone', dir], {
    encoding: 'utf8',
  });
  if (r.error) throw new Error(`kubectl not found (Debian: apt-get install -y kubernetes-client)`);
  if (r.status !== 0) throw new Error(r.stderr.trim());
  return parseAllDocuments(r.stdout).map((d) => d.toJS());
}

/** The schema's model for an object: kubernetes-models/<group>/<version>, class named by kind. */
async function model(apiVersion, kind) {
  const path = apiVersion.includes('/') ? apiVersion : `v1`;
  const mod = await import(`kubernetes-models/${path}`);
  return mod[kind];
}

/** The setting names of libs/config (every property of EnvVars). */
function settings() {
  const src = readFileSync(join(root, 'libs', 'config', 'src', 'env.ts'), 'utf8');
  const body = src.slice(
    src.indexOf('export class EnvVars'),
    src.indexOf('export class ConfigError'),
  );
  return [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]+)[?!]?[:=\s]/gm)].map((m) => m[1]);
}

const podSpecs = (objects) =>
  objects.flatMap((o) =>
    o.kind === 'Deployment' || o.kind === 'Job' ? [[`${o.kind}/${o.metadata.name}`, o]] : [],
  );

async function checkOverlay(name, dir, { production }) {
  let objects;
  try {
    objects = render(dir);
  } catch (e) {
    return check(`${name}: renders`, [e.message]);
  }
  check(`${name}: renders (${objects.length} objects)`, objects.length ? [] : ['no objects']);

  const schemaProblems = [];
  for (const o of objects) {
    const Model = await model(o.apiVersion, o.kind);
    if (!Model) {
      schemaProblems.push(`${o.apiVersion} ${o.kind}: no schema`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (e) {
      schemaProblems.push(`${o.kind}/${o.metadata?.name}: ${e.message}`);
    }
  }
  check(`${name}: every object valid against the Kubernetes schemas`, schemaProblems);

  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const kinds = new Set(objects.map((o) => o.kind));
  const expected = [
    'ConfigMap',
    'Deployment',
    'Service',
    'Job',
    'HorizontalPodAutoscaler',
    'NetworkPolicy',
    'ServiceAccount',
    ...(production ? ['PodDisruptionBudget'] : []),
  ];
  check(
    `${name}: has ${expected.join(', ')}`,
    expected.filter((k) => !kinds.has(k)).map((k) => `missing ${k}`),
  );

  // Settings: every variable in the ConfigMap or the Secret (the base's names: production's Secret
  // is created by the platform team with the same keys), every container reading both.
  const config = byKind('ConfigMap').find((c) => c.metadata.name === 'offers-config');
  const baseSecret = parse(readFileSync(join(k8s, 'base', 'secret.yaml'), 'utf8'));
  const keys = new Set([
    ...Object.keys(config?.data ?? {}),
    ...Object.keys(baseSecret.stringData ?? {}),
  ]);
  const envProblems = settings()
    .filter((s) => !keys.has(s))
    .map((s) => `${s} is in neither deploy/kubernetes/base/configmap.yaml nor secret.yaml`);
  for (const key of keys)
    if (!settings().includes(key)) envProblems.push(`${key} is not a setting of libs/config`);
  for (const [id, o] of podSpecs(objects)) {
    const spec = o.spec.template.spec;
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      const from = (c.envFrom ?? []).map((e) => e.configMapRef?.name ?? e.secretRef?.name);
      if (!from.includes('offers-config') || !from.includes('offers-secrets'))
        envProblems.push(`${id} ${c.name}: envFrom lacks offers-config or offers-secrets`);
    }
  }
  check(
    `${name}: every setting in the ConfigMap or the Secret, read by every container`,
    envProblems,
  );
  check(
    `${name}: ${production ? 'no Secret (created from the secret store)' : 'a Secret'}`,
    production === byKind('Secret').length > 0 ? ['unexpected Secret count'] : [],
  );

  const podProblems = [];
  for (const [id, o] of podSpecs(objects)) {
    const spec = o.spec.template.spec;
    if (spec.securityContext?.runAsNonRoot !== true) podProblems.push(`${id}: runAsNonRoot`);
    if (spec.automountServiceAccountToken !== false) podProblems.push(`${id}: token mounted`);
    const tmp = new Set((spec.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      const at = `${id} ${c.name}`;
      if (!/@sha256:[0-9a-f]{64}$/.test(c.image)) podProblems.push(`${at}: image not by digest`);
      const sc = c.securityContext ?? {};
      if (sc.readOnlyRootFilesystem !== true) podProblems.push(`${at}: root filesystem writable`);
      if (sc.allowPrivilegeEscalation !== false) podProblems.push(`${at}: privilege escalation`);
      if (!sc.capabilities?.drop?.includes('ALL')) podProblems.push(`${at}: capabilities kept`);
      const r = c.resources ?? {};
      if (!r.requests?.cpu || !r.requests?.memory || !r.limits?.memory)
        podProblems.push(`${at}: cpu/memory requests and memory limit`);
    }
    for (const c of spec.containers) {
      const m = (c.volumeMounts ?? []).find((v) => v.mountPath === '/tmp');
      if (!m || !tmp.has(m.name)) podProblems.push(`${id} ${c.name}: no emptyDir on /tmp`);
    }
  }
  check(`${name}: non-root, read-only root filesystem, images by digest, resources`, podProblems);

  const probeProblems = [];
  for (const d of byKind('Deployment')) {
    const spec = d.spec.template.spec;
    const c = spec.containers[0];
    const ports = new Set((c.ports ?? []).map((p) => p.name));
    const want = { startupProbe: '/health', readinessProbe: '/ready', livenessProbe: '/health' };
    for (const [probe, path] of Object.entries(want)) {
      const get = c[probe]?.httpGet;
      if (get?.path !== path || !ports.has(get.port))
        probeProblems.push(`${d.metadata.name}: ${probe} should GET ${path} on a named port`);
    }
    if (!spec.initContainers?.some((i) => i.command.join(' ').endsWith('migrate --wait')))
      probeProblems.push(`${d.metadata.name}: does not wait for the schema (migrate --wait)`);
    const stop = c.lifecycle?.preStop?.exec?.command;
    const sleep = stop?.[0] === 'sleep' ? Number(stop[1]) : 0;
    if (d.metadata.name === 'offers-api' && !sleep)
      probeProblems.push('offers-api: no preStop pause before SIGTERM');
    if (!(spec.terminationGracePeriodSeconds > sleep + 20))
      probeProblems.push(
        `${d.metadata.name}: terminationGracePeriodSeconds leaves < 20 s to drain`,
      );
  }
  check(
    `${name}: probes on /health and /ready, schema wait, drain within the grace period`,
    probeProblems,
  );

  const refProblems = [];
  const deployments = new Map(byKind('Deployment').map((d) => [d.metadata.name, d]));
  for (const h of byKind('HorizontalPodAutoscaler'))
    if (!deployments.has(h.spec.scaleTargetRef.name))
      refProblems.push(`HPA ${h.metadata.name}: no Deployment ${h.spec.scaleTargetRef.name}`);
  for (const p of byKind('PodDisruptionBudget')) {
    const sel = p.spec.selector.matchLabels;
    const hit = [...deployments.values()].some((d) =>
      Object.entries(sel).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
    );
    if (!hit) refProblems.push(`PDB ${p.metadata.name}: selects no Deployment's pods`);
  }
  for (const s of byKind('Service')) {
    const hit = [...deployments.values()].find((d) =>
      Object.entries(s.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
    );
    const ports = new Set(hit?.spec.template.spec.containers[0].ports.map((p) => p.name));
    for (const p of s.spec.ports)
      if (!ports.has(p.targetPort))
        refProblems.push(`Service ${s.metadata.name}: port ${p.targetPort}`);
  }
  check(`${name}: HPAs, PDBs and Services point at the Deployments and their ports`, refProblems);
  return objects;
}

const version = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).stdout ?? '';
const kustomize = /Kustomize Version: v(\d+)/.exec(version)?.[1];
check(
  `kubectl with kustomize v5 or later (${kustomize ? `v${kustomize}` : 'none'})`,
  Number(kustomize) >= 5 ? [] : ['install kubectl 1.27 or later (Debian: kubernetes-client)'],
);
await checkOverlay('development', join(k8s, 'overlays', 'development'), { production: false });
await checkOverlay('production', join(k8s, 'overlays', 'production'), { production: true });
// The optional component, on top of production, must render and validate too.
const withComponent = mkdtempSync(join(tmpdir(), 'offers-k8s-'));
try {
  writeFileSync(
    join(withComponent, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `resources: [${JSON.stringify(relative(withComponent, join(k8s, 'overlays', 'production')))}]`,
      `components: [${JSON.stringify(relative(withComponent, join(k8s, 'components', 'queue-depth-autoscaling')))}]`,
    ].join('\n'),
  );
  const objects = await checkOverlay('production + queue-depth-autoscaling', withComponent, {
    production: true,
  });
  const hpa = objects?.find(
    (o) => o.metadata.name === 'offers-worker' && o.kind.startsWith('Horiz'),
  );
  check(
    'queue-depth-autoscaling: the worker HPA reads the backlog age',
    hpa?.spec.metrics.some((m) => m.type === 'External') ? [] : ['no External metric'],
  );
} finally {
  rmSync(withComponent, { recursive: true, force: true });
}

process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
if (process.argv[2]) writeFileSync(process.argv[2], JSON.stringify({ passed, failed }));
process.exit(failed ? 1 : 0);
