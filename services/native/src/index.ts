// Public surface of the native host package for the benchmark and tests: the app factory and its deps.
export { createNativeApp } from './app';
export { type NativeConfig, type NativeDeps, nativeConfigFromEnv, openNativeDeps } from './deps';
