import { once } from 'node:events';
import { rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hiddenEntry,
  type PluginSettings,
  projectWith,
  type TestProject,
  textOf,
  visibleNames,
} from '../../_testing/host.js';

const KEY = { WEATHER_API_KEY: 'test-key' };

/** Open-Meteo's answer to `/v1/forecast?current=…&timezone=auto`, trimmed to what matters. */
const FORECAST = {
  latitude: 52.52,
  longitude: 13.419998,
  generationtime_ms: 0.05,
  utc_offset_seconds: 3600,
  timezone: 'Europe/Berlin',
  timezone_abbreviation: 'GMT+1',
  elevation: 38,
  current_units: { time: 'iso8601', temperature_2m: '°C' },
  current: {
    time: '2025-01-15T14:00',
    interval: 900,
    temperature_2m: 3.4,
    relative_humidity_2m: 81,
    wind_speed_10m: 12.6,
    weather_code: 61,
  },
};

interface Seen {
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
}

let project: TestProject;
let server: Server;
let port: number;
let seen: Seen[];
let respond: (res: ServerResponse) => void;

beforeEach(async () => {
  project = await projectWith('weather');
  seen = [];
  respond = (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(FORECAST));
  };
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    respond(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
  await project.dispose();
});

const local = () => `127.0.0.1:${port}`;

/**
 * Effective permissions are declared ∩ granted: config alone cannot open a host the plugin does
 * not declare. To reach the local test server, the copy of the plugin under test declares it
 * too: its entry becomes a wrapper that adds `127.0.0.1:<port>` to the real plugin's
 * `permissions.net`, everything else unchanged.
 */
async function declareLocalServer(): Promise<void> {
  await rename(path.join(project.pluginDir, 'index.ts'), path.join(project.pluginDir, 'upstream.ts'));
  await writeFile(
    path.join(project.pluginDir, 'index.ts'),
    [
      `import { definePlugin } from '@toolhost/plugin-sdk';`,
      `import weather from './upstream.ts';`,
      `export default definePlugin({`,
      `  ...weather,`,
      `  permissions: { ...weather.permissions, net: [...(weather.permissions?.net ?? []), ${JSON.stringify(local())}] },`,
      `});`,
      '',
    ].join('\n'),
  );
}

/** Grants the key and the local server, and points the plugin at it. */
const localSettings = (): PluginSettings => ({
  config: { baseUrl: `http://${local()}` },
  grants: { net: [local()], env: ['WEATHER_API_KEY'] },
});

describe('weather plugin', () => {
  describe('availability', () => {
    it('hides weather_now with env-missing while WEATHER_API_KEY is unset', async () => {
      const host = await project.host({ settings: localSettings() });
      expect(host.plugins[0]).toMatchObject({ id: 'weather', status: 'loaded' });
      expect(visibleNames(host)).toEqual([]);
      expect(hiddenEntry(host, 'weather_now')?.diagnostics).toEqual([
        expect.objectContaining({ reason: 'env-missing', signal: { kind: 'env', name: 'WEATHER_API_KEY' } }),
      ]);
      const { result, status } = await host.session().call('weather_now', { latitude: 0, longitude: 0 });
      expect(status).toBe('blocked');
      expect(textOf(result)).toMatch(/^Tool "weather_now" is not available: env-missing: /);
      expect(seen).toEqual([]);
    });

    it('shows weather_now once the variable is set, annotated read-only and open-world', async () => {
      const host = await project.host({ env: KEY });
      expect(visibleNames(host)).toEqual(['weather_now']);
      const { descriptor } = host.plan().visible[0] ?? {};
      expect(descriptor?.annotations).toEqual({ readOnlyHint: true, openWorldHint: true });
      expect(descriptor?.outputSchema).toMatchObject({ type: 'object' });
      expect(host.plugins[0]?.manifest?.permissions).toEqual({
        net: ['api.open-meteo.com'],
        env: ['WEATHER_API_KEY'],
      });
    });
  });

  describe('against a local server', () => {
    beforeEach(declareLocalServer);

    it('fetches the current weather, sending the key read through ctx.env', async () => {
      const host = await project.host({ env: KEY, settings: localSettings() });
      const { result, status } = await host
        .session()
        .call('weather_now', { latitude: 52.52, longitude: 13.41 });
      expect(status).toBe('ok');
      expect(textOf(result)).toBe(
        'Light rain, 3.4 °C, humidity 81%, wind 12.6 km/h (at 52.52, 13.419998, 2025-01-15T14:00 Europe/Berlin)',
      );
      expect(result.structuredContent).toEqual({
        latitude: 52.52,
        longitude: 13.419998,
        time: '2025-01-15T14:00',
        timezone: 'Europe/Berlin',
        temperatureC: 3.4,
        humidityPercent: 81,
        windSpeedKmh: 12.6,
        weatherCode: 61,
        conditions: 'light rain',
      });
      expect(seen).toHaveLength(1);
      const request = new URL(seen[0]?.url ?? '', `http://${local()}`);
      expect(request.pathname).toBe('/v1/forecast');
      expect(Object.fromEntries(request.searchParams)).toEqual({
        latitude: '52.52',
        longitude: '13.41',
        current: 'temperature_2m,relative_humidity_2m,wind_speed_10m,weather_code',
        timezone: 'auto',
      });
      expect(seen[0]?.headers['x-api-key']).toBe('test-key');
    });

    it('reports the reason the service gives for refusing a request', async () => {
      respond = (res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: true, reason: 'Cannot initialize WeatherVariable from invalid String' }),
        );
      };
      const host = await project.host({ env: KEY, settings: localSettings() });
      const { result, status } = await host.session().call('weather_now', { latitude: 1, longitude: 2 });
      expect(status).toBe('tool-error');
      expect(textOf(result)).toBe(
        'Tool "weather_now" failed: the weather service answered 400 Bad Request: ' +
          'Cannot initialize WeatherVariable from invalid String',
      );
    });

    it('fails with a clear message on an answer of the wrong shape', async () => {
      respond = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ latitude: 1, longitude: 2 }));
      };
      const host = await project.host({ env: KEY, settings: localSettings() });
      const { result } = await host.session().call('weather_now', { latitude: 1, longitude: 2 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(
        /^Tool "weather_now" failed: the weather service sent an unexpected answer: .*current/s,
      );
    });

    it('refuses the server while config does not grant it, naming the config key', async () => {
      const host = await project.host({
        env: KEY,
        settings: { ...localSettings(), grants: { env: ['WEATHER_API_KEY'] } },
      });
      const { result } = await host.session().call('weather_now', { latitude: 1, longitude: 2 });
      expect(textOf(result)).toBe(
        `Tool "weather_now" failed: ctx.fetch to "${local()}" is not allowed: plugin "weather" declares ` +
          `permissions.net ["${local()}"] but config does not grant it; add "${local()}" to plugins.weather.grants.net`,
      );
      expect(seen).toEqual([]);
    });

    it('cannot read the key while config does not grant it', async () => {
      const host = await project.host({
        env: KEY,
        settings: { ...localSettings(), grants: { net: [local()] } },
      });
      const { result } = await host.session().call('weather_now', { latitude: 1, longitude: 2 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('environment variable WEATHER_API_KEY is not granted');
      expect(textOf(result)).toContain('plugins.weather.grants.env');
      expect(seen).toEqual([]);
    });
  });

  describe('net permissions', () => {
    it('refuses a granted host the plugin does not declare', async () => {
      const host = await project.host({ env: KEY, settings: localSettings() });
      const { result } = await host.session().call('weather_now', { latitude: 1, longitude: 2 });
      expect(textOf(result)).toBe(
        `Tool "weather_now" failed: ctx.fetch to "${local()}" is not allowed: plugin "weather" must declare ` +
          `permissions.net ["${local()}"] and config must grant it at plugins.weather.grants.net`,
      );
      expect(seen).toEqual([]);
    });

    it('refuses api.open-meteo.com until config grants it (no request is made)', async () => {
      const host = await project.host({ env: KEY, settings: { grants: { env: ['WEATHER_API_KEY'] } } });
      const { result } = await host.session().call('weather_now', { latitude: 1, longitude: 2 });
      expect(textOf(result)).toBe(
        'Tool "weather_now" failed: ctx.fetch to "api.open-meteo.com" is not allowed: plugin "weather" ' +
          'declares permissions.net ["api.open-meteo.com"] but config does not grant it; add ' +
          '"api.open-meteo.com" to plugins.weather.grants.net',
      );
    });
  });

  describe('validation', () => {
    it('refuses coordinates its schema rejects, with the schema messages', async () => {
      const host = await project.host({ env: KEY, settings: localSettings() });
      const s = host.session();
      expect(textOf((await s.call('weather_now', { latitude: 91, longitude: 0 })).result)).toBe(
        'Invalid input for tool "weather_now": at "latitude": latitude must be between -90 and 90',
      );
      expect(textOf((await s.call('weather_now', { latitude: '52.5' })).result)).toBe(
        'Invalid input for tool "weather_now": at "latitude": latitude must be a number; ' +
          'at "longitude": longitude must be a number',
      );
      expect(seen).toEqual([]);
    });

    it('hides its tool with a diagnostic naming the key when config.baseUrl is invalid', async () => {
      const host = await project.host({ env: KEY, settings: { config: { baseUrl: 'ftp://example.com' } } });
      expect(host.plugins[0]).toMatchObject({ id: 'weather', status: 'failed' });
      expect(visibleNames(host)).toEqual([]);
      expect(hiddenEntry(host, 'weather_now')?.diagnostics).toEqual([
        {
          reason: 'plugin-load-failed',
          message:
            'plugin "weather" has an invalid config: plugins.weather.config.baseUrl: baseUrl must be an http(s) URL without query or fragment, e.g. https://api.open-meteo.com. ' +
            'Fix: correct plugins.weather.config in toolhost.config.json, shaped { baseUrl?: string }',
        },
      ]);
    });
  });
});
