/**
 * The claim check: a payload too large for its destination stored in S3, the message carrying a
 * pointer to it in the format of AWS's payload-offloading libraries. Internal: may change at any
 * time.
 */
package dev.lambdaoutbox.poller.internal.claimcheck;
