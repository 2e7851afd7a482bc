// The approval page's own strings (code entry, the confirmation screen, the outcome), in en-US and zh-CN, added to
// the shared sign-in strings of @svc/signin.
import type { Messages } from '@svc/signin';

const en = {
  entryTitle: 'Connect a device',
  entryHeading: 'Connect a device',
  entryIntro: 'Enter the code shown on your TV, console or command line.',
  entryLabel: 'Code',
  entryHelp: 'Eight letters and digits, for example WDJB-MJHT. Capitals and the hyphen do not matter.',
  entryButton: 'Continue',
  codeUnknown: 'That code is not valid, or it has expired. Check the code on your device and try again.',
  codeMalformed: 'That is not a device code. A code has eight letters and digits, for example WDJB-MJHT.',
  confirmHeading: 'Sign in on this device?',
  confirmIntro: '{app} asks to use your account on a device.',
  confirmCode: 'Code',
  confirmCodeHelp: 'Check that your device shows exactly this code.',
  confirmAddress: 'Device address',
  confirmAgent: 'Device software',
  confirmUnknown: 'Not known',
  confirmSignedInAs: 'You are signed in as {email}.',
  confirmWarningHeading: 'Only continue if you started this on your own device',
  confirmWarning:
    'Approving lets {app} use your account on the device that shows this code. If someone sent you this code or link, or asked you to enter it, choose Deny.',
  approveButton: 'Approve',
  denyButton: 'Deny',
  otherCode: 'Use another code',
  approvedHeading: 'Device approved',
  approvedIntro: '{app} on your device is signing in now. You can close this page.',
  deniedHeading: 'Request denied',
  deniedIntro: 'The device was not signed in, and this code can no longer be used. You can close this page.',
  requestGone:
    'This request is no longer waiting: it was already approved or denied, or it expired. Start again on the device.',
  anotherCode: 'Enter another code',
};

export type DeviceKey = keyof typeof en;

const zh: Record<DeviceKey, string> = {
  entryTitle: '连接设备',
  entryHeading: '连接设备',
  entryIntro: '请输入电视、游戏机或命令行上显示的代码。',
  entryLabel: '代码',
  entryHelp: '八位字母和数字，例如 WDJB-MJHT。不区分大小写，连字符可省略。',
  entryButton: '继续',
  codeUnknown: '该代码无效或已过期。请核对设备上的代码后重试。',
  codeMalformed: '这不是设备代码。代码由八位字母和数字组成，例如 WDJB-MJHT。',
  confirmHeading: '要在此设备上登录吗？',
  confirmIntro: '“{app}”请求在一台设备上使用您的账户。',
  confirmCode: '代码',
  confirmCodeHelp: '请确认您的设备显示的代码与此完全一致。',
  confirmAddress: '设备地址',
  confirmAgent: '设备软件',
  confirmUnknown: '未知',
  confirmSignedInAs: '您已登录：{email}',
  confirmWarningHeading: '只有在您本人于自己的设备上发起时才继续',
  confirmWarning:
    '批准后，“{app}”将在显示此代码的设备上使用您的账户。如果有人发给您这个代码或链接，或要求您输入它，请选择“拒绝”。',
  approveButton: '批准',
  denyButton: '拒绝',
  otherCode: '使用其他代码',
  approvedHeading: '设备已批准',
  approvedIntro: '您设备上的“{app}”正在登录。您可以关闭此页面。',
  deniedHeading: '请求已拒绝',
  deniedIntro: '该设备未登录，此代码也不能再使用。您可以关闭此页面。',
  requestGone: '此请求已不再等待：它已被批准或拒绝，或已过期。请在设备上重新开始。',
  anotherCode: '输入其他代码',
};

export const DEVICE_MESSAGES: Messages<DeviceKey> = { 'en-US': en, 'zh-CN': zh };
