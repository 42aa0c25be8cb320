// README's "Kafka clients" table lists exactly the APIs the gateway registers, with the versions
// their handlers serve: what ApiVersions advertises is what users read.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KAFKA_APIS } from '../../lib/kafka/apis/index.js';

describe('README Kafka clients', () => {
  it('lists every registered API with its key and versions, and nothing else', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Kafka clients'));
    const table = section.slice(section.indexOf('| API (key) | Versions |'), section.indexOf('\n\n', section.indexOf('| API (key) | Versions |')));
    const rows = [...table.matchAll(/^\| (\w+) \((\d+)\) \| (\d+)–(\d+)/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}-${m[4]}`).sort();
    expect(rows).toEqual(KAFKA_APIS.map((a) => `${a.name} ${a.apiKey} ${a.minVersion}-${a.maxVersion}`).sort());
  });
});
