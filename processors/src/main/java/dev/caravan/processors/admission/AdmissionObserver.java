package dev.caravan.processors.admission;

/**
 * Told about every admission decision (metrics). May be called under the controller's lock: must be quick and must not
 * call back into the controller.
 */
public interface AdmissionObserver {

    /**
     * @param key          the request's tenant and class
     * @param queued       true when the request waited in the queue
     * @param waitedNanos  how long it waited (0 when admitted at once)
     */
    void onAdmitted(FlowKey key, boolean queued, long waitedNanos);

    void onRejected(FlowKey key, Rejection reason);

    /** Tells both observers, this one first. */
    default AdmissionObserver andThen(AdmissionObserver other) {
        AdmissionObserver first = this;
        return new AdmissionObserver() {
            @Override
            public void onAdmitted(FlowKey key, boolean queued, long waitedNanos) {
                first.onAdmitted(key, queued, waitedNanos);
                other.onAdmitted(key, queued, waitedNanos);
            }

            @Override
            public void onRejected(FlowKey key, Rejection reason) {
                first.onRejected(key, reason);
                other.onRejected(key, reason);
            }
        };
    }

    AdmissionObserver NONE = new AdmissionObserver() {
        @Override
        public void onAdmitted(FlowKey key, boolean queued, long waitedNanos) {
        }

        @Override
        public void onRejected(FlowKey key, Rejection reason) {
        }
    };
}
