package dev.caravan.processors.config;

import java.util.Objects;
import java.util.Set;

/**
 * What Caravan does with a flag it accepts — the "status" column of the SGLang flag list in
 * {@code docs/configuration.md}. Most rows are {@link Status#IMPLEMENTED}; the others exist so that an SGLang command
 * line never stops at "unknown flag":
 * <ul>
 *   <li>{@link Status#DIFFERENT}: implemented, with a difference from SGLang the note explains (a default, a unit,
 *       part of the behaviour);</li>
 *   <li>{@link Status#IGNORED}: accepted and without effect here; a value other than the default logs one start-up
 *       warning naming the flag and why ({@link CaravanFlag#warning});</li>
 *   <li>{@link Status#REFUSED}: changes security or response content and is not implemented; a value other than the
 *       default stops start-up with a message naming the flag and why ({@link CaravanFlag#refusal}).</li>
 * </ul>
 * Any row may also refuse some of its values ({@code --backend openai}) while accepting others.
 *
 * @param status        see above
 * @param note          why (ignored, refused) or how it differs; empty for {@link Status#IMPLEMENTED}
 * @param refusedValues values (canonical spelling) that stop start-up whatever the status
 * @param refusedReason why those values are refused
 */
public record FlagSupport(Status status, String note, Set<String> refusedValues, String refusedReason) {

    /** How a flag is treated. */
    public enum Status {
        IMPLEMENTED("implemented"),
        DIFFERENT("implemented, different"),
        IGNORED("accepted and ignored"),
        REFUSED("refused");

        private final String label;

        Status(String label) {
            this.label = label;
        }

        /** The words the docs use. */
        public String label() {
            return label;
        }
    }

    /** Implemented as documented upstream. */
    public static final FlagSupport IMPLEMENTED = new FlagSupport(Status.IMPLEMENTED, "", Set.of(), "");

    public FlagSupport {
        Objects.requireNonNull(status, "status");
        note = note == null ? "" : note.trim();
        refusedValues = refusedValues == null ? Set.of() : Set.copyOf(refusedValues);
        refusedReason = refusedReason == null ? "" : refusedReason.trim();
        if (status != Status.IMPLEMENTED && note.isEmpty()) {
            throw new IllegalArgumentException("a flag that is " + status.label() + " needs a note saying why");
        }
        if (!refusedValues.isEmpty() && refusedReason.isEmpty()) {
            throw new IllegalArgumentException("refused values need a reason");
        }
    }

    /** This support, also refusing {@code values} for {@code reason}. */
    public FlagSupport refusing(String reason, Set<String> values) {
        return new FlagSupport(status, note, values, reason);
    }

    /** This support with another status and note, keeping the refused values. */
    public FlagSupport as(Status newStatus, String newNote) {
        return new FlagSupport(newStatus, newNote, refusedValues, refusedReason);
    }
}
