/**
 * nginx in front of the test JupyterLab, as a reverse proxy with a request
 * body size limit (`client_max_body_size`), the way many deployments put
 * one (an ingress in front of a hub). Started by the test that needs it, on
 * its own port (BOOKSHELF_TEST_NGINX_PORT, default the Lab port + 4, which
 * scripts/serve.py allows in the buckets' CORS rules), and stopped by it,
 * by the PID of the process it started.
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

import { fixture, runDir } from './helpers';

const NGINX = '/usr/sbin/nginx';

export interface INginx {
  /** The proxy's URL, e.g. `http://127.0.0.1:18892`. */
  url: string;
  /** How many request bodies nginx refused as too large so far. */
  refusedBodies(): number;
  stop(): Promise<void>;
}

/**
 * Start nginx proxying to the test JupyterLab with `bodyLimit` (nginx's
 * size syntax: `3m`, `64k`). With `tls`, nginx ends TLS (https, on its own
 * port, BOOKSHELF_TEST_NGINX_TLS_PORT, default the Lab port + 5) with a
 * certificate made for 127.0.0.1 (the browser context must ignore that no
 * authority signed it) and passes plain HTTP on, saying which scheme the
 * browser used (`X-Forwarded-Proto`), as Jupyter's documentation sets it
 * up.
 */
export async function startNginx(
  bodyLimit: string,
  options: { tls?: boolean } = {}
): Promise<INginx> {
  const servers = fixture();
  const labPort = servers.lab_port;
  const port = options.tls ? servers.nginx_tls_port : servers.nginx_port;
  const dir = path.join(runDir(), `nginx-${port}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, 'error.log');
  const temp = (name: string) => path.join(dir, name);
  let listen = `listen 127.0.0.1:${port};`;
  if (options.tls) {
    makeCertificate(temp('cert.pem'), temp('key.pem'));
    listen = `listen 127.0.0.1:${port} ssl;
    ssl_certificate ${temp('cert.pem')};
    ssl_certificate_key ${temp('key.pem')};`;
  }
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `# Written by ui-tests/tests/nginx.ts.
# Ignored (with a warning) when not run as root; as root, the workers may
# then write their temporary files here.
user root;
worker_processes 1;
pid ${temp('nginx.pid')};
error_log ${log} info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  client_max_body_size ${bodyLimit};
  server {
    ${listen}
    location / {
      proxy_pass http://127.0.0.1:${labPort};
      # The page's own host and port: Jupyter compares them with Origin.
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
    }
  }
}
`
  );
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  );
  let stderr = '';
  child.stderr?.on('data', chunk => (stderr += String(chunk)));
  const exited = new Promise<void>(resolve =>
    child.once('exit', () => resolve())
  );
  try {
    await waitForPort(port, child);
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    throw new Error(`nginx did not start: ${error}\n${stderr}`);
  }
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    refusedBodies: () =>
      (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '')
        .split('\n')
        .filter(line => line.includes('client intended to send too large body'))
        .length,
    stop: async () => {
      if (child.exitCode === null) {
        // Fast shutdown of the master, which ends its worker.
        child.kill('SIGTERM');
        await exited;
      }
    }
  };
}

/**
 * A self-signed certificate for 127.0.0.1, valid for a day (openssl, which
 * Debian's ca-certificates depends on).
 */
function makeCertificate(certificate: string, key: string): void {
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      certificate
    ],
    { encoding: 'utf8' }
  );
  if (made.status !== 0) {
    throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  }
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`exited with ${child.exitCode}`);
    }
    const open = await new Promise<boolean>(resolve => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) {
      return;
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
  throw new Error(`port ${port} did not open`);
}
