export * from "./advertising.js";
export * from "./catalog.js";
export * from "./common.js";
export * from "./envelope.js";
export * from "./ip-risk.js";
export * from "./marketplace.js";
export * from "./patent-identifier.js";
export * from "./patent-search.js";
