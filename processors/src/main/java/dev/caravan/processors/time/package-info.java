/**
 * Time without a thread: {@link dev.caravan.processors.time.DelayScheduler}, the one timer abstraction of the request
 * path (the relays' deadlines and idle limits, the retry back-off, the admission queue's timeouts). Production uses
 * Vert.x timers; tests move a manual scheduler by hand, so nothing sleeps.
 */
package dev.caravan.processors.time;
