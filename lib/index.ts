// The package's public entry (`import { Sluice } from 'sluice'`): the client library. The server
// side (lib/api, lib/log, ...) is deployed by infra/ or run by `npm start`, not imported by users.
export * from './client/index.js';
