import { addCallGuest, mintGuestToken, revokeDealShare, shareDeal } from './share.js';

/*
 * Deal rooms (docs/families/crm.md, Rooms): the four methods, and what the guest page (gateway/deal-room.ts) reads
 * with a token instead of a key.
 */

export const crmRoomHandlers = { shareDeal, mintGuestToken, revokeDealShare, addCallGuest };

export { roomView, roomFile, roomCallIcs, ROOM_GUEST_PER_ADDRESS_PER_MINUTE, type RoomView } from './guest.js';
