import { definePlugin, defineTool, env, type ToolContext } from '@toolhost/plugin-sdk';
import * as z from 'zod';

/**
 * Current weather from Open-Meteo, through `ctx.fetch`. Shows three things working together:
 *
 * - availability: `weather_now` is hidden (`env-missing`) until `WEATHER_API_KEY` is set, so the
 *   model never sees a tool that cannot work;
 * - `permissions.env`: the key is read with `ctx.env.get` (config grants it at
 *   `plugins.weather.grants.env`) and sent as the `x-api-key` header. The public Open-Meteo API
 *   needs no key: here it stands for any key-protected service;
 * - `permissions.net`: only `api.open-meteo.com` can be reached (granted at
 *   `plugins.weather.grants.net`).
 *
 * `config.baseUrl` points the plugin at another server (a mirror or a test server); that host
 * must be declared and granted too, or `ctx.fetch` refuses it.
 */

const KEY = 'WEATHER_API_KEY';

const config = z
  .object({
    // A pattern, not z.url(): the sandbox has no `URL` global, which z.url() needs.
    baseUrl: z
      .string()
      .regex(/^https?:\/\/[^\s/?#]+(?:\/[^\s?#]*)?$/, {
        error: 'baseUrl must be an http(s) URL without query or fragment, e.g. https://api.open-meteo.com',
      })
      .default('https://api.open-meteo.com'),
  })
  .prefault({});

/** What tools get as `ctx.config` (defineTool cannot infer it from the plugin, so say it). */
type WeatherConfig = z.output<typeof config>;

/** WMO weather interpretation codes, as Open-Meteo documents them. */
const CONDITIONS: Readonly<Record<number, string>> = {
  0: 'clear sky',
  1: 'mainly clear',
  2: 'partly cloudy',
  3: 'overcast',
  45: 'fog',
  48: 'depositing rime fog',
  51: 'light drizzle',
  53: 'drizzle',
  55: 'dense drizzle',
  56: 'light freezing drizzle',
  57: 'freezing drizzle',
  61: 'light rain',
  63: 'rain',
  65: 'heavy rain',
  66: 'light freezing rain',
  67: 'freezing rain',
  71: 'light snow',
  73: 'snow',
  75: 'heavy snow',
  77: 'snow grains',
  80: 'light rain showers',
  81: 'rain showers',
  82: 'violent rain showers',
  85: 'light snow showers',
  86: 'snow showers',
  95: 'thunderstorm',
  96: 'thunderstorm with light hail',
  99: 'thunderstorm with hail',
};

const CURRENT = ['temperature_2m', 'relative_humidity_2m', 'wind_speed_10m', 'weather_code'] as const;

/** The part of Open-Meteo's `/v1/forecast?current=…` answer this tool uses. */
const forecast = z.object({
  latitude: z.number(),
  longitude: z.number(),
  timezone: z.string().optional(),
  current: z.object({
    time: z.string(),
    temperature_2m: z.number(),
    relative_humidity_2m: z.number(),
    wind_speed_10m: z.number(),
    weather_code: z.number().int(),
  }),
});

const output = z.object({
  latitude: z.number(),
  longitude: z.number(),
  time: z.string().describe('Local time of the observation (ISO 8601, without offset)'),
  timezone: z.string().optional(),
  temperatureC: z.number(),
  humidityPercent: z.number(),
  windSpeedKmh: z.number(),
  weatherCode: z.number().int().describe('WMO weather interpretation code'),
  conditions: z.string(),
});

/** Open-Meteo explains a refused request as `{ "error": true, "reason": "…" }`. */
async function failureOf(response: { status: number; statusText: string; text(): Promise<string> }) {
  const body = await response.text();
  let reason = body.slice(0, 200);
  try {
    const parsed = JSON.parse(body) as { reason?: unknown };
    if (typeof parsed.reason === 'string') reason = parsed.reason;
  } catch {
    // Not JSON: keep the start of the body.
  }
  return new Error(`the weather service answered ${response.status} ${response.statusText}: ${reason}`);
}

const weatherNow = defineTool({
  name: 'weather_now',
  title: 'Current weather',
  description:
    'Gets the current weather at a place from Open-Meteo: temperature (°C), relative humidity, ' +
    'wind speed (km/h) and conditions (clear, rain, snow, …). Takes coordinates in decimal ' +
    'degrees; if you only know a place name, use the coordinates you know for it (e.g. Berlin: ' +
    '52.52, 13.41).',
  input: z.object({
    latitude: z
      .number({ error: 'latitude must be a number' })
      .min(-90, { error: 'latitude must be between -90 and 90' })
      .max(90, { error: 'latitude must be between -90 and 90' })
      .describe('Latitude in decimal degrees, north positive'),
    longitude: z
      .number({ error: 'longitude must be a number' })
      .min(-180, { error: 'longitude must be between -180 and 180' })
      .max(180, { error: 'longitude must be between -180 and 180' })
      .describe('Longitude in decimal degrees, east positive'),
  }),
  output,
  availability: env(KEY),
  annotations: { readOnlyHint: true, openWorldHint: true },
  execute: async ({ latitude, longitude }, ctx: ToolContext<WeatherConfig>) => {
    const key = ctx.env.get(KEY);
    if (key === undefined || key.trim() === '') throw new Error(`${KEY} is not set`);
    const query = [
      `latitude=${latitude}`,
      `longitude=${longitude}`,
      `current=${CURRENT.join(',')}`,
      'timezone=auto',
    ].join('&');
    const url = `${ctx.config.baseUrl.replace(/\/+$/, '')}/v1/forecast?${query}`;
    const response = await ctx.fetch(url, { headers: { accept: 'application/json', 'x-api-key': key } });
    if (!response.ok) throw await failureOf(response);

    const parsed = forecast.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) {
      throw new Error(`the weather service sent an unexpected answer: ${z.prettifyError(parsed.error)}`);
    }
    const { current } = parsed.data;
    const conditions = CONDITIONS[current.weather_code] ?? `weather code ${current.weather_code}`;
    const weather = {
      latitude: parsed.data.latitude,
      longitude: parsed.data.longitude,
      time: current.time,
      ...(parsed.data.timezone === undefined ? {} : { timezone: parsed.data.timezone }),
      temperatureC: current.temperature_2m,
      humidityPercent: current.relative_humidity_2m,
      windSpeedKmh: current.wind_speed_10m,
      weatherCode: current.weather_code,
      conditions,
    };
    const where = `${weather.latitude}, ${weather.longitude}`;
    const when = weather.timezone === undefined ? weather.time : `${weather.time} ${weather.timezone}`;
    return {
      content: [
        {
          type: 'text',
          text:
            `${conditions[0]?.toUpperCase()}${conditions.slice(1)}, ${weather.temperatureC} °C, ` +
            `humidity ${weather.humidityPercent}%, wind ${weather.windSpeedKmh} km/h (at ${where}, ${when})`,
        },
      ],
      structuredContent: weather,
    };
  },
});

export default definePlugin({
  id: 'weather',
  version: '1.0.0',
  description: 'Current weather from Open-Meteo',
  config,
  permissions: { net: ['api.open-meteo.com'], env: [KEY] },
  tools: [weatherNow],
});
