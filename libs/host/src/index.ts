// Host start-up shared by every issuing host: the issuing part of the configuration schema, the core connections
// (openHostCore) and the options every host app is created with (hostAppOptions).
export * from './app-options';
export * from './dpop-replay';
export * from './host-core';
export * from './issuing-config';
