import { createServer, Server } from 'net';
import type { AddressInfo } from 'net';

export interface Mail {
  to: string[];
  data: string;
}

/** A tiny SMTP sink on 127.0.0.1: accepts every message and keeps it. */
export async function smtpSink(): Promise<{ server: Server; port: number; mails: Mail[] }> {
  const mails: Mail[] = [];
  const server = createServer((sock) => {
    sock.write('220 sink ESMTP\r\n');
    let buf = '';
    let cur: Mail = { to: [], data: '' };
    let inData = false;
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            mails.push(cur);
            cur = { to: [], data: '' };
            sock.write('250 OK queued\r\n');
          } else cur.data += `${line}\n`;
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO' || cmd === 'HELO') sock.write('250-sink\r\n250 8BITMIME\r\n');
        else if (cmd === 'RCPT') {
          cur.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          sock.write('250 OK\r\n');
        } else if (cmd === 'DATA') {
          inData = true;
          sock.write('354 go ahead\r\n');
        } else if (cmd === 'QUIT') {
          sock.end('221 bye\r\n');
        } else sock.write('250 OK\r\n');
      }
    });
    sock.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, mails };
}
