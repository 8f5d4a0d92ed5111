/**
 * "Watch on another player": the session's long-lived playback URL, as text
 * to copy and as a QR code, for VLC, a smart TV or any HLS player, with what
 * ending the session here does to it. Asked for only when the viewer opens
 * the panel, since such a URL costs the edge a deny entry when the session ends.
 */
import { formatDateTime } from '../shared/time';
import type { LongLivedUrl } from './types';
import { qrCodeSvg } from '../shared/qr-code';
import { els } from './view';

export class OtherPlayerPanel {
  readonly #getUrl: () => Promise<LongLivedUrl | null>;
  #active = false;

  constructor(getUrl: () => Promise<LongLivedUrl | null>) {
    this.#getUrl = getUrl;
  }

  /** Shows the button (closed panel). */
  offer(): void {
    this.#active = true;
    this.#close();
    els.otherPlayerToggle.hidden = false;
    els.otherPlayerToggle.onclick = () => void (els.otherPlayer.hidden ? this.#open() : this.#close());
    els.otherPlayerCopy.onclick = () => void this.#copy();
  }

  /** The session is over: hide the button, the panel and the URL. */
  withdraw(): void {
    this.#active = false;
    this.#close();
    els.otherPlayerToggle.hidden = true;
  }

  async #open(): Promise<void> {
    els.otherPlayer.hidden = false;
    els.otherPlayerToggle.setAttribute('aria-expanded', 'true');
    els.otherPlayerStatus.textContent = 'Getting the link…';
    const url = await this.#getUrl();
    if (!this.#active || els.otherPlayer.hidden) return;
    if (!url) {
      els.otherPlayerStatus.textContent = "We couldn't get a link right now. Close this and try again in a moment.";
      return;
    }
    els.otherPlayerStatus.textContent = '';
    els.otherPlayerUrl.value = url.playbackUrl;
    els.otherPlayerQr.replaceChildren(qrCodeSvg(url.playbackUrl, 'QR code of the playback link'));
    els.otherPlayerUntil.textContent = `It works until ${formatDateTime(url.expiresAt)} at the latest.`;
    els.otherPlayerLink.hidden = false;
  }

  #close(): void {
    els.otherPlayer.hidden = true;
    els.otherPlayerToggle.setAttribute('aria-expanded', 'false');
    els.otherPlayerLink.hidden = true;
    els.otherPlayerUrl.value = '';
    els.otherPlayerQr.replaceChildren();
    els.otherPlayerStatus.textContent = '';
  }

  async #copy(): Promise<void> {
    els.otherPlayerUrl.select();
    try {
      await navigator.clipboard.writeText(els.otherPlayerUrl.value);
      els.otherPlayerStatus.textContent = 'Link copied.';
    } catch {
      els.otherPlayerStatus.textContent = 'Copy the selected link with your keyboard or menu.';
    }
  }
}
