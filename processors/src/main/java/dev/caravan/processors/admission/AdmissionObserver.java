package dev.caravan.processors.admission;

/**
 * Told about every admission decision (metrics). May be called under the controller's lock: must be quick and must not
 * call back into the controller.
 */
public interface AdmissionObserver {

    /**
     * @param queued       true when the request waited in the queue
     * @param waitedNanos  how long it waited (0 when admitted at once)
     */
    void onAdmitted(boolean queued, long waitedNanos);

    void onRejected(Rejection reason);

    AdmissionObserver NONE = new AdmissionObserver() {
        @Override
        public void onAdmitted(boolean queued, long waitedNanos) {
        }

        @Override
        public void onRejected(Rejection reason) {
        }
    };
}
