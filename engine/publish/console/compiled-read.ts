// The reads as the reader live in store/reader-db.ts; the console's change feed, key timelines
// and schedules take them from here until they import store/reader-db.ts themselves.
export { readCompiled, readerWarehouse } from "../../../store/reader-db.js";
