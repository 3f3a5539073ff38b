/**
 * The least old-generation heap a worker thread of the generator is given. A worker first deserializes Node's startup
 * snapshot into its heap: on Node 24 a budget too small for that (2 MB, measured) is not the worker's
 * ERR_WORKER_OUT_OF_MEMORY, which the generator recovers from, but "Fatal JavaScript out of memory: GC during
 * deserialization", which aborts the whole process; 4 MB was enough there, 8 leaves room.
 */
export const MIN_WORKER_HEAP_MB = 8;
