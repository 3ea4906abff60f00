import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from 'pg';
import { parseAllDocuments } from 'yaml';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { loadServiceConfig } from '@app/config';
import { currentTestRun } from '../support/test-servers';

/**
 * deploy/kubernetes, checked without a cluster: every manifest against the Kubernetes API's
 * OpenAPI schemas (the kubernetes-models package from npm; kubeconform is a download from GitHub,
 * which this machine cannot reach), the kustomizations' lists against the folders, the ConfigMap
 * and Secret against the service's configuration, and the migrations Job's command run for real.
 */
const ROOT = join(__dirname, '..', '..');
const KUBE = join(ROOT, 'deploy', 'kubernetes');
const BASE = join(KUBE, 'base');
const OVERLAY = join(KUBE, 'overlays', 'sandbox');
const CLOUDNATIVE_PG = join(KUBE, 'overlays', 'cloudnative-pg');

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [field: string]: unknown;
};
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

function documents(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
    return doc.toJS();
  });
}

interface Kustomization {
  resources: string[];
  patches?: { path?: string; patch?: string; target?: { kind: string; name: string } }[];
}

/** The fields of CloudNativePG's resources the overlay relies on (postgresql.cnpg.io/v1). */
interface SecretKey {
  name: string;
  key: string;
}
interface ClusterSpec {
  instances: number;
  storage: { size: string };
  backup: {
    retentionPolicy: string;
    barmanObjectStore: {
      destinationPath: string;
      s3Credentials: { accessKeyId: SecretKey; secretAccessKey: SecretKey };
      wal: { compression: string };
    };
  };
}
interface ScheduledBackupSpec {
  schedule: string;
  method: string;
  backupOwnerReference: string;
  cluster: { name: string };
}
const kustomization = (dir: string) =>
  documents(join(dir, 'kustomization.yaml'))[0] as Kustomization;

/** The manifests a kustomization lists, its base's included. */
function manifestsOf(dir: string): { file: string; manifest: Manifest }[] {
  return kustomization(dir).resources.flatMap((entry) => {
    const path = join(dir, entry);
    if (existsSync(join(path, 'kustomization.yaml'))) return manifestsOf(path);
    return documents(path).map((manifest) => ({
      file: relative(ROOT, path),
      manifest: manifest as Manifest,
    }));
  });
}

const containersOf = (manifest: Manifest) => {
  const spec = manifest.spec as { template?: { spec?: { containers?: Container[] } } };
  return spec.template?.spec?.containers ?? [];
};
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}

/** The service's variables: the api-and-worker section of .env.example. */
function serviceVariables(): string[] {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const section = text.split(/^# -+ /m).find((part) => part.startsWith('api and worker'));
  return [...(section ?? '').matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  const base = manifestsOf(BASE);
  const overlay = manifestsOf(OVERLAY);

  it('validate against the Kubernetes API schemas, base and sandbox overlay', () => {
    const problems: string[] = [];
    for (const { file, manifest } of [...base, ...overlay]) {
      const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
      if (!Model) {
        problems.push(`${file}: no schema known for ${manifest.apiVersion} ${manifest.kind}`);
        continue;
      }
      try {
        new Model(manifest as never).validate();
      } catch (error) {
        problems.push(`${file} ${manifest.kind}/${manifest.metadata?.name}: ${String(error)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(base.map((m) => m.manifest.kind).sort()).toEqual(
      [
        'ConfigMap',
        'Deployment',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Ingress',
        'Job',
        'Namespace',
        'NetworkPolicy',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'PodDisruptionBudget',
        'Secret',
        'Service',
      ].sort(),
    );
  });

  it('list every file of their folders, and patch only what exists', () => {
    for (const dir of [BASE, OVERLAY, CLOUDNATIVE_PG]) {
      const { resources, patches = [] } = kustomization(dir);
      const used = new Set([
        'kustomization.yaml',
        ...resources,
        ...patches.flatMap((patch) => (patch.path ? [patch.path] : [])),
      ]);
      const files = readdirSync(dir).filter((name) => name.endsWith('.yaml'));
      expect(files.filter((name) => !used.has(name))).toEqual([]);
      for (const patch of patches) {
        const target = patch.target ?? (documents(join(dir, patch.path as string))[0] as Manifest);
        const name = 'metadata' in target ? target.metadata.name : target.name;
        expect(
          base.some((m) => m.manifest.kind === target.kind && m.manifest.metadata.name === name),
        ).toBe(true);
      }
    }
  });

  it('name every variable of the api and the worker, secrets in the Secret only', () => {
    const config = base.find((m) => m.manifest.kind === 'ConfigMap')?.manifest as Manifest & {
      data: Record<string, string>;
    };
    const secret = base.find((m) => m.manifest.kind === 'Secret')?.manifest as Manifest & {
      stringData: Record<string, string>;
    };
    const named = [...Object.keys(config.data), ...Object.keys(secret.stringData)].sort();
    expect(named).toEqual([...serviceVariables()].sort());
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'PESAPAL_CONSUMER_SECRET',
      'IPN_PATH_SECRET',
      'STATUS_TOKEN_SECRET',
      'SHOP_API_KEYS',
      'ADMIN_API_KEYS',
      'ADMIN_AUTH_SECRET',
      'OIDC_CLIENT_SECRET',
      'ORDER_WEBHOOK_SECRET',
      'METRICS_TOKEN',
    ]) {
      expect(Object.keys(secret.stringData)).toContain(name);
    }
  });

  it('configure a service that starts in production (base) and on the sandbox (overlay)', () => {
    const envOf = (manifests: { manifest: Manifest }[], patch?: Record<string, string>) => {
      const config = manifests.find((m) => m.manifest.kind === 'ConfigMap')
        ?.manifest as unknown as {
        data: Record<string, string>;
      };
      const secret = manifests.find((m) => m.manifest.kind === 'Secret')?.manifest as unknown as {
        stringData: Record<string, string>;
      };
      return { ...config.data, ...patch, ...secret.stringData } as NodeJS.ProcessEnv;
    };
    const production = loadServiceConfig(envOf(base));
    expect(production.nodeEnv).toBe('production');
    expect(production.runMigrationsOnStart).toBe(false);
    expect(production.host).toBe('0.0.0.0');
    const patch = (
      documents(join(OVERLAY, 'configmap-patch.yaml'))[0] as { data: Record<string, string> }
    ).data;
    const staging = loadServiceConfig(envOf(base, patch));
    expect(staging.gateway.baseUrl).toBe('http://pesapal-sandbox/pesapalv3/api');
  });

  it('probe the health routes on declared ports and stop within the grace period', () => {
    for (const { manifest } of [...base, ...overlay].filter(
      (m) => m.manifest.kind === 'Deployment',
    )) {
      for (const container of containersOf(manifest)) {
        const ports = (container.ports ?? []).map((port) => port.name);
        for (const probe of [
          container.readinessProbe,
          container.livenessProbe,
          container.startupProbe,
        ]) {
          if (!probe?.httpGet) continue;
          expect(ports).toContain(probe.httpGet.port);
          expect(['/health/live', '/health/ready']).toContain(probe.httpGet.path);
        }
        expect(container.resources?.requests?.memory).toMatch(/Mi$/);
        expect(container.resources?.limits?.memory).toMatch(/Mi$/);
        // The process it runs is one this repository builds (dist/apps/<app>/apps/<app>/src/x.js).
        const entry = (container.command ?? []).find((part) => part.startsWith('dist/'));
        const source = entry?.replace(/^dist\/apps\/[a-z]+\//, '').replace(/\.js$/, '.ts');
        expect(source && existsSync(join(ROOT, source))).toBe(true);
      }
      const api = manifest.metadata.name === 'pesapal-checkout-api';
      if (api) {
        const spec = (
          manifest.spec as { template: { spec: { terminationGracePeriodSeconds: number } } }
        ).template.spec;
        const preStop = containersOf(manifest)[0].lifecycle?.preStop?.exec?.command ?? [];
        const sleepSeconds = Number(preStop[1]);
        // preStop, then up to 30 s of draining requests bounded by the gateway's timeout.
        expect(spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(sleepSeconds + 30);
      }
    }
  });

  it('run PostgreSQL through CloudNativePG (overlay): archived, backed up weekly, the apps on its secret', () => {
    const own = manifestsOf(CLOUDNATIVE_PG).filter((m) => m.file.includes('cloudnative-pg'));
    const byKind = (kind: string) => own.filter((m) => m.manifest.kind === kind);
    // The Kubernetes kinds against their schemas; the operator's own against what it requires.
    for (const { manifest } of byKind('Secret')) {
      new Secret(manifest as never).validate();
    }
    const [cluster] = byKind('Cluster').map((m) => m.manifest as Manifest & { spec: ClusterSpec });
    const [scheduled] = byKind('ScheduledBackup').map(
      (m) => m.manifest as Manifest & { spec: ScheduledBackupSpec },
    );
    expect(own.map((m) => `${m.manifest.apiVersion} ${m.manifest.kind}`).sort()).toEqual([
      'postgresql.cnpg.io/v1 Cluster',
      'postgresql.cnpg.io/v1 ScheduledBackup',
      'v1 Secret',
    ]);
    expect(cluster.spec.instances).toBeGreaterThanOrEqual(2);
    expect(cluster.spec.storage.size).toMatch(/^\d+(Mi|Gi|Ti)$/);
    // The operator's retention syntax: a number of days, weeks or months.
    expect(cluster.spec.backup.retentionPolicy).toMatch(/^[1-9][0-9]*[dwm]$/);
    const store = cluster.spec.backup.barmanObjectStore;
    expect(store.destinationPath).toMatch(/^(s3|gs|https):\/\/[^/]+/);
    const credentials = byKind('Secret').map(
      (m) => m.manifest as Manifest & { stringData: Record<string, string> },
    );
    for (const reference of [
      store.s3Credentials.accessKeyId,
      store.s3Credentials.secretAccessKey,
    ]) {
      const secret = credentials.find((c) => c.metadata.name === reference.name);
      expect(secret && Object.keys(secret.stringData)).toContain(reference.key);
    }
    expect(store.wal.compression).toBe('gzip');
    // The scheduled base backups are of this cluster, through its object store.
    expect(scheduled.spec.cluster.name).toBe(cluster.metadata.name);
    expect(scheduled.spec.method).toBe('barmanObjectStore');
    expect(['none', 'self', 'cluster']).toContain(scheduled.spec.backupOwnerReference);
    // Six fields (seconds first), each a number, a list, a range, a step or *.
    expect(scheduled.spec.schedule.split(' ')).toHaveLength(6);
    for (const field of scheduled.spec.schedule.split(' ')) {
      expect(field).toMatch(/^(\*|\d+(-\d+)?(,\d+(-\d+)?)*)(\/\d+)?$/);
    }
    // Every app that connects (both Deployments and the migrations Job) takes DATABASE_URL from
    // the secret the operator writes for the database owner: <cluster>-app, key uri.
    const patched = kustomization(CLOUDNATIVE_PG).patches ?? [];
    const connecting = base.filter((m) => ['Deployment', 'Job'].includes(m.manifest.kind));
    expect(patched.map((patch) => `${patch.target?.kind}/${patch.target?.name}`).sort()).toEqual(
      connecting.map((m) => `${m.manifest.kind}/${m.manifest.metadata.name}`).sort(),
    );
    for (const patch of patched) {
      const [operation] = parseAllDocuments(patch.patch as string)[0].toJS() as {
        op: string;
        path: string;
        value: { name: string; valueFrom: { secretKeyRef: { name: string; key: string } } }[];
      }[];
      expect(operation).toMatchObject({ op: 'add', path: '/spec/template/spec/containers/0/env' });
      expect(operation.value).toEqual([
        {
          name: 'DATABASE_URL',
          valueFrom: { secretKeyRef: { name: `${cluster.metadata.name}-app`, key: 'uri' } },
        },
      ]);
    }
  });

  it("runs the migrations Job's entry point: a fresh database migrated, then nothing to do", async () => {
    const job = base.find((m) => m.manifest.kind === 'Job')?.manifest as Manifest;
    const entry = containersOf(job)[0].command?.find((part) => part.startsWith('dist/')) as string;
    const source = entry.replace(/^dist\/apps\/[a-z]+\//, '').replace(/\.js$/, '.ts');
    const run = currentTestRun();
    const name = `${run.databaseName}_k8s_job`;
    const admin = new Client({ connectionString: run.adminDatabaseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      const url = `${run.databaseUrl.slice(0, run.databaseUrl.lastIndexOf('/'))}/${name}`;
      const migrate = () =>
        spawnSync(process.execPath, ['-r', '@swc-node/register', source], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: url, LOG_FILE: '' },
          encoding: 'utf8',
          timeout: 60_000,
        });
      const first = migrate();
      expect(first.status).toBe(0);
      expect(
        JSON.parse(first.stdout.trim().split('\n').pop() as string).applied.length,
      ).toBeGreaterThan(5);
      const again = migrate();
      expect(again.status).toBe(0);
      expect(JSON.parse(again.stdout.trim().split('\n').pop() as string).applied).toEqual([]);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  }, 120_000);
});
